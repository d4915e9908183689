import type { App } from '../app.js';
import { checkRoutes } from '../agent/profiles.js';
import { Approvals } from './gate.js';

/**
 * Permissions: the approval gate for high-risk calls (channels register their prompters on
 * `app.context.approvals`), and a check that every route names a declared agent.
 */
export async function installApprovals(app: App): Promise<void> {
  checkRoutes(app.config);
  const approvals = new Approvals({ config: app.config, secrets: app.loaded.secrets, tools: app.tools, log: app.log.child({ component: 'approval' }) });
  app.tools.setApprovalGate(approvals.gate);
  app.context.approvals = approvals;
}
