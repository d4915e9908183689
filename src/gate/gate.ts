/**
 * The gate: every tool call passes these checks, in this order, once its arguments are valid and the `tool:before`
 * hooks have run (src/registry/registry.ts calls `decide`):
 *
 *  1. offer       the tool is one this turn is offered (the agent's tools and granted permissions ∩ a skill's list ∩
 *                 the unattended set, unattended.ts); the registry refuses any other at lookup, before anything
 *                 here. What a call needs beyond its tool (`email` action "send" needs `email.send`) is checked here
 *                 first: not granted is a refusal, never a question
 *  2. provenance  in a turn holding outside content, the call's declared effects against where its inputs came from
 *                 (provenance.ts): anything composed, sent with data, or changing what runs later wants a person
 *  3. risk        a high-risk tool or call wants a person
 *  4. budget      a fetch or search that would go ahead unasked because it was chosen among what the person or a
 *                 third party wrote is charged the bits that choice can carry (budget.ts); past a budget it wants a
 *                 person instead
 *  5. who answers unattended: its approve list, and never once it holds outside content; `auto_approve`: only when
 *                 the turn holds none; else the person on their channel (answer.ts)
 *  6. guest       a call allowed in a turn holding outside content runs as the workspace's guest: the files already
 *                 there are read-only to it (src/sandbox/guest.ts), unless its `modify` effects are on files the
 *                 person named or the person said yes to them
 *
 * `vouched` says what a finished call's third-party text vouches for (addresses.ts). A registry without a gate
 * refuses anything that would want a person (fail closed).
 */
import type { Approvals } from '../approval/approvals.js';
import type { Config } from '../config/schema.js';
import type { ToolRegistry } from '../registry/registry.js';
import type { AskReason, CallGate, GateCall, GateDecision } from '../tools/call.js';
import { vouchedBy } from '../net/addresses.js';
import { answer } from './answer.js';
import type { LeakBudget } from './budget.js';
import type { OwnerReach } from './owner-ask.js';
import { checkEffects } from './provenance.js';

export interface GateDeps {
  config: Config;
  secrets: readonly string[];
  approvals: Pick<Approvals, 'ask' | 'handlerForChannel' | 'handlerForConsole'>;
  tools: Pick<ToolRegistry, 'get'>;
  budget: LeakBudget;
  /** In a household: how the owner is reached for a member's dangerous call (gate/owner-ask.ts). */
  reach?: OwnerReach | undefined;
}

export function createGate(deps: GateDeps): CallGate {
  return {
    async decide(call: GateCall): Promise<GateDecision> {
      const { entry, params, request, risk } = call;
      const beyond = request.filter?.missing && entry.tool.callPermissions ? request.filter.missing(safePermissions(() => entry.tool.callPermissions?.(params) ?? [])) : undefined;
      if (beyond !== undefined) return { allowed: false, decision: 'denied: permission', reason: `this call needs ${beyond}` };
      const taint = request.taint ?? [];
      const verdict = taint.length > 0 ? checkEffects(call.effects, request.provenance) : undefined;
      // The guest is lifted only for a call whose every effect is a change the person named or says yes to.
      const guest = taint.length > 0 && verdict?.owner !== true ? { guest: true } : {};
      const lines = [...(verdict?.lines ?? [])];
      let reason: AskReason | undefined = verdict?.ask === true ? 'provenance' : risk === 'high' ? 'risk' : undefined;
      let charged: string | undefined;
      if (reason === undefined && verdict !== undefined && verdict.bits > 0) {
        const charge = deps.budget.charge({
          turnId: request.turnId, conversationId: request.conversationId, tool: entry.name, callId: call.callId,
          unattended: request.unattended ?? false, run: request.run, bits: verdict.bits,
        });
        if (charge.success) charged = charge.value;
        else {
          reason = 'budget';
          lines.push(charge.error);
        }
      }
      if (reason === undefined) return charged !== undefined ? { allowed: true, decision: charged, ...guest } : { allowed: true, ...guest };
      const decided = await answer(deps, {
        tool: entry.name, params, risk, callId: call.callId, conversationId: request.conversationId, origin: request.origin,
        unattended: request.unattended ?? false, taint, reason,
        ...(lines.length > 0 ? { provenance: lines } : {}),
        ...(entry.tool.explain ? { details: safeLines(() => entry.tool.explain?.(params) ?? []) } : {}),
        ...(request.signal ? { signal: request.signal } : {}),
      }, request.approve);
      if (decided.approved) return { allowed: true, decision: `approved${decided.by ? ` by ${decided.by}` : ''}`, ...guest };
      return { allowed: false, decision: `denied: ${decided.reason}`, reason: decided.reason };
    },

    vouched(entry, params, result) {
      if (entry.tool.vouches !== true || !result.success || !result.thirdParty || result.thirdParty.length === 0) return undefined;
      return vouchedBy(result.thirdParty, params);
    },
  };
}

/** A tool's own explanation lines; one that throws explains nothing rather than stopping the question. */
function safeLines(explain: () => string[]): string[] {
  try {
    return explain().filter((line) => typeof line === 'string').slice(0, 20);
  } catch {
    return [];
  }
}

/** A tool's per-call permissions; one that throws needs a permission no one is granted, so the call is refused. */
function safePermissions(permissions: () => readonly string[]): readonly string[] {
  try {
    return permissions();
  } catch {
    return ['(the tool failed to say)'];
  }
}
