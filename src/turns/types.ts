/**
 * The one way into the agent, as the parts that start turns see it: a chat message, a scheduled job and a skill
 * run all become a `TurnRequest`; their results go to a chat through the one `Delivery` (src/delivery/). Parts get
 * these functions injected by the composition root and import neither the agent nor the channels.
 */
import type { TurnEvent, TurnResult, TurnSource } from '../agent/types.js';
import type { ToolFilter } from '../tools/tool-filter.js';
import type { ChatTicket } from './chat-line.js';
import type { ApprovalHandler } from '../tools/call.js';
import type { CallOrigin } from '../tools/types.js';

export type { LlmGate, TurnEvent, TurnResult, TurnSource, TurnStatus } from '../agent/types.js';

/** A run nobody is watching (a scheduled job, a skill on its schedule): who owns it and what it may do alone. */
export interface Unattended {
  /** `job` or `skill`, for the notes the person reads ("add it to the job's approve list"). */
  owner: 'job' | 'skill' | 'heartbeat';
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
  /** A chat message's place in its chat's line (`Turns.enter`): the turn is queued in that place, in its conversation. */
  chat?: ChatTicket;
  /** Where the agent (persona, model, tools) is looked up; default the origin. Jobs use `scheduler:<job id>` routes. */
  route?: Pick<CallOrigin, 'channel' | 'chatId'>;
  /** A model to try first (the heartbeat's cheaper `heartbeat.model`); the route's agent and `llm.model` follow. */
  model?: string;
  /** In a household, the person it runs as (a job's or skill's recorded person); default: from the origin's sender. */
  person?: string;
  /** Set for jobs and skills on their schedule: nobody can answer a question. */
  unattended?: Unattended;
  /**
   * Outside sources the run starts with: a job or skill made while outside content was in play, a skill run from a
   * turn that holds outside content, an MCP prompt's messages (which the person chose but did not write). Its calls
   * are gated as in any tainted turn.
   */
  taint?: readonly string[];
  /** A further restriction of the tools (a skill's own list); intersected with the agent's. */
  filter?: ToolFilter;
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

export type { ChatTicket };
