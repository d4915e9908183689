/**
 * What one turn of the agent is and gives back: where it came from, its progress as it runs, and its result. The
 * agent's own types; the parts see them through `turns/types.ts`, the one way into the agent.
 */
import type { LlmUsage } from '../llm/types.js';
import type { CallEvent } from '../tools/call.js';
import type { Artifact } from '../tools/types.js';

export type TurnSource = 'chat' | 'cli' | 'job' | 'skill' | 'heartbeat';

/**
 * Checked before every LLM call (the usage budget): a string stops the turn with that message. `sampling`: a model
 * call an MCP server asked for, outside any turn.
 */
export type LlmGate = (input: { conversationId: string; source: TurnSource | 'sampling' | 'summary' | 'image' }) => string | undefined;

/**
 * Progress of a turn, for a person watching (`TurnRequest.onEvent`). Text events come only for a request that
 * asked for `stream`; `text_reset` clears what was streamed (a retry or a fallback model starts the answer over).
 * Tool events carry the model's raw arguments: mask them before showing them. `progress` comes from a running tool
 * call (`ToolCallContext.emit`).
 */
export type TurnEvent =
  | { type: 'text_delta'; text: string }
  | { type: 'text_reset' }
  | { type: 'tool_start'; tool: string; arguments: string; callId: string }
  | { type: 'tool_end'; tool: string; success: boolean; durationMs: number; callId: string; output: string; decision?: string }
  | CallEvent;

/** `error`: the turn threw (a bug, or the database failing); it is recorded so, and the error goes to the caller. */
export type TurnStatus = 'ok' | 'loop_cap' | 'repeat' | 'llm_error' | 'cancelled' | 'blocked' | 'error';

export interface TurnResult {
  turnId: string;
  status: TurnStatus;
  /** What to show the person: the answer, or a short honest notice. */
  text: string;
  artifacts: Artifact[];
  usage: LlmUsage & { llmCalls: number };
  model: string | undefined;
  toolCalls: number;
  /** Outside sources read in this turn. */
  externalSources: string[];
  /**
   * Every outside source in play by the end: those read now, those already in the conversation's history window,
   * and those the run started with (a job or skill made while outside content was in play).
   */
  taint: string[];
  /** High-risk or gated calls refused (no approval, nobody to ask). */
  denied: string[];
  error?: string;
}
