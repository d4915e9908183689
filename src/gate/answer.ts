import type { Approvals } from '../approval/approvals.js';
import type { Config } from '../config/schema.js';
import { redactSecrets } from '../log.js';
import type { ToolRegistry } from '../registry/registry.js';
import type { ApprovalDecision, ApprovalHandler, ApprovalRequest } from '../tools/call.js';
import { currentPerson } from '../lib/person-scope.js';
import { createToolFilter } from '../tools/tool-filter.js';
import { askOwner, type OwnerReach } from './owner-ask.js';

export interface AnswerDeps {
  config: Config;
  secrets: readonly string[];
  approvals: Pick<Approvals, 'ask' | 'handlerForChannel' | 'handlerForConsole'>;
  tools: Pick<ToolRegistry, 'get'>;
  /** How the owner is reached in a household (direct chats) and the member told where. */
  reach?: OwnerReach | undefined;
}

/**
 * Who may say yes once the gate wants a person (the last of its checks, see gate.ts):
 * 1. an unattended run cannot ask: its own handler decides (a job's or skill's approve list) — except when it holds
 *    outside content, where it is refused outright (an approve list is a standing approval, like auto_approve, and
 *    outside content could be steering the call);
 * 2. `approval.auto_approve` tools pass, unless the turn holds outside content;
 * 3. otherwise the person is asked — through the request's handler, or the prompter of the origin's channel — and
 *    no answer within `approval.timeout_s` is a denial.
 * Contract: never throws; every failure is a denial with a reason.
 */
export async function answer(deps: AnswerDeps, request: ApprovalRequest, handler: ApprovalHandler | undefined): Promise<ApprovalDecision> {
  const tainted = request.taint.length > 0;
  if (request.unattended) {
    if (tainted) return { approved: false, reason: unattendedRefusal(deps, request) };
    if (!handler) {
      return { approved: false, reason: `this is an unattended run (job or skill) and nobody can approve ${request.tool}; list it in the job's or skill's approve list if it should run unattended` };
    }
    return deps.approvals.ask(handler, request);
  }
  if (!tainted && autoApproved(deps, request.tool)) return { approved: true, by: 'auto_approve' };
  // In a household a dangerous call (a high-risk tool: mail, the sandbox, requests that change things, shared memory)
  // by anyone but the owner is the owner's to allow; questions about a person's own turn stay theirs.
  const person = currentPerson();
  if (person && person.role !== 'owner' && request.reason === 'risk') {
    return askOwner(deps, request, person);
  }
  const ask = handler ?? deps.approvals.handlerForChannel(request.origin.channel);
  if (!ask) return { approved: false, reason: tainted ? taintedRefusal(deps, request) : `nobody can be asked to approve ${request.tool} on ${request.origin.channel} (this channel has no approval prompt); the person can add it to approval.auto_approve or use a chat that can ask` };
  return deps.approvals.ask(ask, request);
}

function unattendedRefusal(deps: AnswerDeps, request: ApprovalRequest): string {
  const sources = sourcesOf(deps, request);
  if (request.reason === 'budget') {
    const why = request.provenance?.at(-1) ?? 'its leak budget is spent';
    return `this unattended run has read outside content (${sources}) and ${redactSecrets(why, deps.secrets)}; nobody can approve more here`;
  }
  return `this unattended run has read outside content (${sources}), so ${request.tool} needs a person's approval and nobody can give it here, even with the tool on the approve list`;
}

/** auto_approve is no help here (it never covers a tainted turn), so the refusal names what would be. */
function taintedRefusal(deps: AnswerDeps, request: ApprovalRequest): string {
  const sources = sourcesOf(deps, request);
  return `outside content was read in this conversation (${sources}), so ${request.tool} needs a person's yes and nobody can be asked on ${request.origin.channel} here; to give one, run familiar ask on a terminal (it asks y/N) or ask in a chat; `
    + 'or start a clean conversation (familiar ask --new, /reset in a chat) and ask again without reading that content';
}

function sourcesOf(deps: AnswerDeps, request: ApprovalRequest): string {
  return request.taint.map((source) => redactSecrets(source, deps.secrets)).join(', ');
}

function autoApproved(deps: AnswerDeps, tool: string): boolean {
  const patterns = deps.config.approval.auto_approve;
  if (patterns.length === 0) return false;
  const entry = deps.tools.get(tool);
  return entry ? createToolFilter(patterns).allows(entry) : patterns.includes(tool);
}
