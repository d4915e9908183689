import { applyAgent } from '../agent/profiles.js';
import type { TurnInput } from '../agent/agent.js';
import { ChatLines, type ChatTicket } from './chat-line.js';
import type { ChatQueue } from './chat-queue.js';
import type { Config } from '../config/schema.js';
import { GUEST, type People } from '../config/people.js';
import { withPerson, type ActingPerson } from '../lib/person-scope.js';
import { createPermissionFilter } from '../tools/permissions.js';
import { workspaceFor } from '../workspace/workspace-key.js';
import { linkAbort } from '../lib/abort.js';
import type { EventSink } from '../tools/events.js';
import { approveList, unattendedFilter } from '../gate/unattended.js';
import { intersectFilters } from '../tools/tool-filter.js';
import type { CallOrigin, Risk } from '../tools/types.js';
import type { StartTurn, TurnOutcome, TurnRequest, TurnResult } from './types.js';

export interface TurnsDeps {
  config: Config;
  agent: { runTurn(input: TurnInput): Promise<TurnResult> };
  conversations: { resolve(channel: string, chatId: string): string; ensure(id: string, channel: string, chatId: string, kind: 'chat' | 'job' | 'skill'): string };
  /** The fixed risk of a registered tool (undefined for an unknown one, or one decided per call). */
  riskOf: (tool: string) => Risk | undefined;
  queue: ChatQueue;
  /** Gets `turn:start` and `turn:end` for every turn (chats, jobs, skills). */
  events?: EventSink;
  /** Who is who in a household (`people:`); each turn runs as its person. Absent or no people: one person, as before. */
  people?: People;
}

export interface Turns {
  start: StartTurn;
  /**
   * A chat message's place in its chat's line, taken when it arrives: its turn enters the queue after every earlier
   * message's, its replies go out after theirs, and `/stop` reaches it while it runs (chat-line.ts). `conversationId`:
   * the chat's conversation when the caller already resolved it (a command that starts a turn).
   */
  enter(origin: Pick<CallOrigin, 'channel' | 'chatId'>, conversationId?: string): ChatTicket;
  /** Aborts the running turn of a chat; false when nothing was running. */
  stop(channel: string, chatId: string): boolean;
  /** Chat messages accepted and not finished (their turns running, queued, or their files still coming). */
  waiting(): number;
  /** Chat turns running now, and queued behind them. */
  active(): number;
  pending(): number;
  /** Shutdown: lets chat turns finish until `graceMs`, then cancels the rest and waits briefly for them to end. */
  drain(graceMs: number): Promise<void>;
}

/**
 * The one way into the agent. A chat message runs in the chat's active conversation, one turn at a time per chat
 * (the ChatQueue); a job or skill names its own conversation and is not queued behind chats. Every turn gets its
 * chat's agent (routes: persona, model, tools). An unattended run is offered the tools an unattended run may use
 * and can be approved high-risk calls only by its approve list; the refusals are noted in its answer.
 */
export function createTurns(deps: TurnsDeps): Turns {
  const { conversations, queue } = deps;
  const inFlight = new Set<AbortController>();
  const lines = new ChatLines((channel, chatId) => conversations.resolve(channel, chatId));

  const start: StartTurn = (request) => {
    if (request.conversationId !== undefined) {
      // A job's or a skill's conversation is filed under the chat that made it but stays theirs, never the chat's.
      const kind = request.source === 'job' || request.source === 'skill' ? request.source : request.source === 'heartbeat' ? 'job' : 'chat';
      conversations.ensure(request.conversationId, request.origin.channel, request.origin.chatId, kind);
      return runTurn(deps, request, request.conversationId, request.signal);
    }
    const conversationId = request.chat?.conversation() ?? conversations.resolve(request.origin.channel, request.origin.chatId);
    const queued = queue.run(conversationId, async () => {
      const controller = new AbortController();
      inFlight.add(controller);
      const unlink = linkAbort(controller, request.signal);
      try {
        return await runTurn(deps, request, conversationId, controller);
      } finally {
        inFlight.delete(controller);
        unlink();
      }
    });
    // In the queue now (synchronously): the chat's next message may enter.
    request.chat?.entered();
    return queued;
  };

  return {
    start,
    enter: (origin, conversationId) => lines.enter(origin, conversationId),
    stop: (channel, chatId) => lines.stop(channel, chatId),
    waiting: () => lines.waiting(),
    active: () => queue.active(),
    pending: () => queue.pending(),
    async drain(graceMs) {
      await queue.idle(AbortSignal.timeout(graceMs));
      for (const controller of inFlight) controller.abort(new DOMException('shutting down', 'AbortError'));
      await queue.idle(AbortSignal.timeout(2000));
    },
  };
}

/**
 * One turn with its chat's agent, as its person in a household (their memory, tools, budget and zone: the stores it
 * reaches read `currentPerson()`); an unattended run's answer notes the calls it was refused for want of approval.
 */
function runTurn(deps: TurnsDeps, request: TurnRequest, conversationId: string, cancel: AbortSignal | AbortController | undefined): Promise<TurnOutcome> {
  if (deps.people?.household !== true) return runTurnAs(deps, request, conversationId, cancel, undefined);
  const person = personOf(deps.people, request);
  return withPerson(person, () => runTurnAs(deps, request, conversationId, cancel, person));
}

/**
 * Whom a turn runs as, from who started it and never from its text: a chat message's sender (by channel and id; the
 * terminal and the console are the owner's), a job's or skill's recorded person, else the owner (a job made before the
 * household began); a sender in no person's ids is a guest.
 */
function personOf(people: People, request: TurnRequest): ActingPerson {
  if (request.person !== undefined) return people.named(request.person);
  const fromChat = request.source === 'chat' || request.source === 'cli' || (request.source === 'skill' && request.origin.userId !== undefined);
  if (fromChat) return people.forSender(request.origin.channel, request.origin.userId);
  return people.owner() ?? GUEST;
}

async function runTurnAs(deps: TurnsDeps, request: TurnRequest, conversationId: string, cancel: AbortSignal | AbortController | undefined, person: ActingPerson | undefined): Promise<TurnOutcome> {
  const input = agentInput(deps, request, conversationId, cancel, person);
  const result = await observed(deps.events, request, conversationId, () => deps.agent.runTurn(input));
  const unattended = request.unattended;
  if (result.denied.length === 0 || !unattended) return result;
  const names = result.denied.join(', ');
  const why = result.taint.length > 0
    ? `this run holds outside content (${result.taint.join(', ')}), and nobody can approve in a scheduled run`
    : `nobody can approve in a scheduled run; add it to the ${unattended.owner}'s approve list to allow it`;
  return { ...result, text: `${result.text}\n\n(Not done: ${names} needs approval, and ${why}.)` };
}

/** The agent's input: the route's agent applied, and an unattended run's tools and approvals narrowed to its own. */
function agentInput(deps: TurnsDeps, request: TurnRequest, conversationId: string, cancel: AbortSignal | AbortController | undefined, person: ActingPerson | undefined): TurnInput {
  const { config } = deps;
  const unattended = request.unattended;
  // A child's allowlist (or the safe default), a guest's: not offered, and refused at lookup if called anyway.
  const grants = person ? deps.people?.grantsOf(person) : undefined;
  const personal = grants ? createPermissionFilter(grants, { who: `${person?.role ?? 'person'} ${person?.name ?? ''}`, key: person?.role === 'guest' ? 'familiar people link' : `people.${person?.name ?? ''}.tools` }) : undefined;
  const narrowed = personal ? intersectFilters(request.filter, personal) : request.filter;
  const filter = unattended ? intersectFilters(narrowed, unattendedFilter(config, deps.riskOf, unattended)) : narrowed;
  const approve = unattended ? approveList(unattended) : request.approve;
  return applyAgent(config, {
    conversationId, text: person && request.source === 'chat' ? `[${person.name}] ${request.text}` : request.text, origin: request.origin, source: request.source,
    // Run inside the person's scope (runTurn): a member's turn gets their own workspace (workspace-key.ts).
    ...(person ? { person: person.name, workspaceId: workspaceFor(conversationId), ...(person.timezone !== undefined ? { timezone: person.timezone } : {}) } : {}),
    ...(filter ? { filter } : {}),
    ...(approve ? { approve } : {}),
    ...(unattended ? { unattended: true, run: { owner: unattended.owner, id: unattended.id } } : {}),
    ...(request.systemExtra !== undefined ? { systemExtra: request.systemExtra } : {}),
    ...(request.model !== undefined ? { model: request.model } : {}),
    ...(request.images ? { images: request.images } : {}),
    ...(request.onEvent ? { onEvent: request.onEvent } : {}),
    ...(request.stream && request.onEvent ? { stream: true } : {}),
    // The chat queue's controller is the turn's own (one per turn); a job's or skill's signal is linked by the agent.
    ...(cancel instanceof AbortController ? { controller: cancel, signal: cancel.signal } : cancel ? { signal: cancel } : {}),
    ...(request.taint && request.taint.length > 0 ? { taint: request.taint } : {}),
  }, request.route);
}

/** The turn between its `turn:start` and `turn:end` events (`error` when the agent threw: a bug, the database). */
async function observed(events: EventSink | undefined, request: TurnRequest, conversationId: string, runTurn: () => Promise<TurnResult>): Promise<TurnResult> {
  if (!events) return runTurn();
  const common = { conversationId, origin: request.origin, source: request.source };
  const started = performance.now();
  events.emit({ type: 'turn:start', ...common, text: request.text });
  let result: TurnResult | undefined;
  try {
    result = await runTurn();
    return result;
  } finally {
    events.emit({
      type: 'turn:end', ...common, turnId: result?.turnId ?? '', status: result?.status ?? 'error',
      toolCalls: result?.toolCalls ?? 0, durationMs: performance.now() - started,
    });
  }
}
