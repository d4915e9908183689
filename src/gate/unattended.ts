import type { Config } from '../config/schema.js';
import type { ApprovalHandler, RunIdentity } from '../tools/call.js';
import { createToolFilter, type ToolFilter } from '../tools/tool-filter.js';
import type { Risk } from '../tools/types.js';

/** What an unattended run may do alone: the high-risk tools the person allowed it ahead of time. */
export interface UnattendedRules extends RunIdentity {
  approve: readonly string[];
}

/**
 * Tools an unattended run is offered: `scheduler.unattended_tools` if set, else every tool whose fixed risk is not
 * high — plus the high-risk tools its approve list names (the person allowed those ahead of time).
 */
export function unattendedFilter(config: Config, riskOf: (tool: string) => Risk | undefined, unattended: Pick<UnattendedRules, 'approve'>): ToolFilter {
  const configured = config.scheduler.unattended_tools;
  if (configured !== undefined) return createToolFilter(configured);
  return {
    description: 'every tool that is not high-risk, and those on the approve list',
    allows: (tool) => riskOf(tool.name) !== 'high' || unattended.approve.includes(tool.name),
  };
}

/** Nobody can be asked in an unattended run: only the run's approve list lets a high-risk call through. */
export function approveList(unattended: UnattendedRules): ApprovalHandler {
  const { owner, id } = unattended;
  return async (call) => {
    if (unattended.approve.includes(call.tool)) return { approved: true, by: `${owner} ${id} approve list` };
    return { approved: false, reason: `the unattended ${owner} "${id}" may not call high-risk ${call.tool}; add it to the ${owner}'s approve list to allow it` };
  };
}
