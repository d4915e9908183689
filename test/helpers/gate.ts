import { Approvals } from '../../src/approval/approvals.js';
import type { Config } from '../../src/config/schema.js';
import type { Database } from '../../src/db/database.js';
import { LeakBudget } from '../../src/gate/budget.js';
import { createGate } from '../../src/gate/gate.js';
import type { Logger } from '../../src/log.js';
import type { ToolRegistry } from '../../src/registry/registry.js';
import type { CallGate } from '../../src/tools/call.js';

/** The daemon's gate, as the root wires it, for tests that build a registry alone (no prompters: a request's `approve` asks). */
export function realGate(options: { registry: ToolRegistry; config: Config; db: Database; log: Logger; secrets?: readonly string[] }): CallGate {
  const secrets = options.secrets ?? [];
  const approvals = new Approvals({ config: options.config, secrets, tools: options.registry, log: options.log });
  return createGate({ config: options.config, secrets, approvals, tools: options.registry, budget: new LeakBudget(options.db, options.config) });
}

/**
 * A gate for tests of one tool on its own: a high-risk call asks the request's `approve` handler, or, without one, the
 * person says yes. (A registry without a gate refuses such calls; these tests are about the tool, not the gate.)
 */
export function personSaysYes(): CallGate {
  return {
    async decide(call) {
      if (call.risk !== 'high') return { allowed: true };
      const handler = call.request.approve;
      if (!handler) return { allowed: true, decision: 'approved by the test' };
      const decided = await handler({
        tool: call.entry.name, params: call.params, risk: call.risk, callId: call.callId, conversationId: call.request.conversationId,
        origin: call.request.origin, unattended: call.request.unattended ?? false, taint: call.request.taint ?? [], reason: 'risk',
      });
      return decided.approved ? { allowed: true, decision: 'approved' } : { allowed: false, decision: `denied: ${decided.reason}`, reason: decided.reason };
    },
    vouched: () => undefined,
  };
}
