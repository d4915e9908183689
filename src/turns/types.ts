/**
 * The one way into the agent, as the parts that start turns see it: a chat message, a scheduled job and a skill
 * run all become a `TurnRequest`; their results go to a chat through one `Delivery`. Parts get these functions
 * injected by the composition root and import neither the agent nor the channels.
 */
import type { TurnEvent, TurnResult, TurnSource } from '../agent/types.js';
import type { ToolPolicy } from '../tools/policy.js';
import type { ApprovalHandler } from '../tools/registry.js';
import type { Artifact, CallOrigin } from '../tools/types.js';

export type { LlmGate, TurnEvent, TurnResult, TurnSource, TurnStatus } from '../agent/types.js';

/** A run nobody is watching (a scheduled job, a skill on its schedule): who owns it and what it may do alone. */
export interface Unattended {
  /** `job` or `skill`, for the notes the person reads ("add it to the job's approve list"). */
  owner: 'job' | 'skill';
  id: string;
  /** High-risk tools the person allowed this run ahead of time (config or the skill's approve list). */
  approve: readonly string[];
}

export interface TurnRequest {
  text: string;
  origin: CallOrigin;
  source: TurnSource;
  /** The conversation; default: the active conversation of the origin's chat (queued one turn at a time). */
  conversationId?: string;
  /** Where the agent (persona, model, tools) is looked up; default the origin. Jobs use `scheduler:<job id>` routes. */
  route?: Pick<CallOrigin, 'channel' | 'chatId'>;
  /** Set for jobs and skills on their schedule: nobody can answer a question. */
  unattended?: Unattended;
  /**
   * Outside sources the run starts with: a job or skill made while outside content was in play, a skill run from a
   * turn that holds outside content, an MCP prompt's messages (which the person chose but did not write). Its calls
   * are gated as in any tainted turn.
   */
  taint?: readonly string[];
  /** A further restriction of the tools (a skill's own list); intersected with the agent's. */
  policy?: ToolPolicy;
  /** Appended to the system prompt (a skill's instructions, a job's context). */
  systemExtra?: string;
  images?: ReadonlyArray<{ mimeType: string; data: Buffer }>;
  signal?: AbortSignal;
  /** Asks the person for high-risk calls (the terminal's y/N); default: the prompter of the origin's channel. */
  approve?: ApprovalHandler;
  onEvent?: (event: TurnEvent) => void;
  /** Stream the answer's text to `onEvent` as it is generated (the LLM request is streamed). */
  stream?: boolean;
}

/** A turn as its starter sees it; `denied` is already explained at the end of an unattended run's `text`. */
export type TurnOutcome = TurnResult;

/** Runs one turn. Contract: never throws for provider or tool failures; a thrown error is a bug or a broken database. */
export type StartTurn = (request: TurnRequest) => Promise<TurnOutcome>;

/** What goes to a chat: text and files. */
export interface Reply {
  text: string;
  artifacts?: Artifact[];
}

/** Where a run's result went, or why it did not. */
export type Delivered = { deliveredTo: string; error?: undefined } | { deliveredTo?: undefined; error: string };

export interface Delivery {
  /** The chat an origin stands for (`telegram:123`), or undefined for the terminal and the scheduler itself. */
  chatOf(origin: CallOrigin): string | undefined;
  /**
   * Where results of something made from `origin` go: the explicit target, else the chat that made it, else
   * `scheduler.default_chat`. Never another chat. Undefined when there is nowhere to send them.
   */
  targetFor(origin: CallOrigin | undefined, explicit?: string): string | undefined;
  /** Sends to a chat (waiting a little for a channel that is still starting). Contract: never throws. */
  deliver(target: string | undefined, reply: Reply, context: { kind: 'job' | 'skill'; id: string }): Promise<Delivered>;
}
