/**
 * One tool call as the parts around the registry see it: what a caller asks (`CallRequest`), what it gets back
 * (`CallOutcome`), the middleware shapes (`tool:before`, `tool:after`), the audit record, and what the gate is asked
 * (`CallGate`, implemented in src/gate/). The registry's machinery is in src/registry/.
 */
import type { Effect, Provenance, Vouched } from './effects.js';
import type { ToolFilter } from './tool-filter.js';
import type { AnyTool, CallOrigin, Risk, ToolCallContext, ToolEvent, ToolResult } from './types.js';

/** A tool as registered: the names it answers to and the compiled schema check. */
export interface RegisteredTool {
  tool: AnyTool;
  name: string;
  /** The name the model sees (the canonical name when it is function-safe). */
  functionName: string;
  /** Grows when `registry.alias` adds one. */
  aliases: readonly string[];
  group: string;
  /** What it needs to be offered: its own declaration, else the built-in catalogue's (src/tools/builtins.ts). */
  permissions?: readonly string[] | undefined;
}

/** An unattended run (a job, a skill on its schedule): who owns it, for its leak budget and its notes. */
export interface RunIdentity {
  owner: 'job' | 'skill' | 'heartbeat';
  id: string;
}

/** One call as the agent asks for it. */
export interface CallRequest {
  name: string;
  /** Raw JSON text from the model, or an already-parsed object (CLI, tests, skills). */
  arguments: string | Record<string, unknown>;
  callId?: string;
  conversationId: string;
  /** The call's workspace (`ctx.workspaceId`); default the conversation's. */
  workspaceId?: string;
  turnId: string;
  origin: CallOrigin;
  unattended?: boolean;
  /** The unattended run making the call (its per-day leak budget). */
  run?: RunIdentity;
  /** The tools this call may use (the agent's, a skill's list, the unattended set); default all. */
  filter?: ToolFilter;
  signal?: AbortSignal;
  /** Asked when the gate wants a person; absent means no one to ask here (the gate then finds a prompter or denies). */
  approve?: ApprovalHandler;
  /** Names the outside content already in this turn, if any. */
  taint?: readonly string[];
  /** Where the conversation's texts came from: a tainted call's inputs are checked against them. */
  provenance?: Provenance;
  /**
   * When given, the call's audit record is pushed here instead of being written at once; the caller writes it
   * with `writeAudit` (the agent does, in the same commit as the call's result).
   */
  deferAudit?: AuditRecord[];
  /** Receives the events the tool emits while it runs (progress), named with the tool and the call. */
  onEvent?: (event: CallEvent) => void;
  /** The person's text of this turn, or the job's prompt (`ctx.input`); default empty. */
  input?: string;
  /** Shared by the calls of one turn or run (`ctx.state`); default a new one for this call. */
  state?: Map<string, unknown>;
  /**
   * Stops the run (`ctx.cancel()`): the calls still running are cancelled, no further call or model step is made.
   * Absent: a tool's `cancel()` cancels only its own call.
   */
  cancel?: (reason: string) => void;
}

/** A tool's event as the caller sees it: which call it came from. */
export type CallEvent = ToolEvent & { tool: string; callId: string };

/**
 * Why a person is asked: `risk` (a high-risk tool or call); `provenance` (the turn holds outside content and the
 * call could carry data out or change what runs later); `budget` (an unasked fetch or search chosen from outside
 * content would pass the leak budget).
 */
export type AskReason = 'risk' | 'provenance' | 'budget';

export interface ApprovalRequest {
  tool: string;
  params: Record<string, unknown>;
  risk: Risk;
  callId: string;
  conversationId: string;
  origin: CallOrigin;
  unattended: boolean;
  taint: readonly string[];
  /** The turn's signal: a question still open when it aborts (/stop, shutdown) ends unapproved. */
  signal?: AbortSignal;
  reason: AskReason;
  /** Where the call's inputs came from, and the budget when that is why: lines for the question. */
  provenance?: readonly string[];
  /** What the tool says the call would do (`NativeTool.explain`), for the question. */
  details?: readonly string[];
}

export type ApprovalDecision = { approved: true; by?: string } | { approved: false; reason: string };
export type ApprovalHandler = (request: ApprovalRequest) => Promise<ApprovalDecision>;

/** What the gate is asked about one call, its arguments valid and final (after the `tool:before` hooks). */
export interface GateCall {
  entry: RegisteredTool;
  params: Record<string, unknown>;
  request: CallRequest;
  callId: string;
  risk: Risk;
  effects: readonly Effect[];
}

/** The gate's answer: run it (`decision` for the audit row when something was decided), or not, and why. */
export type GateDecision = { allowed: true; decision?: string; guest?: boolean } | { allowed: false; decision: string; reason: string };

/**
 * The checks between a valid call and its run (src/gate/gate.ts writes their order). `vouched` turns a finished
 * call's third-party text into what it vouches for (addresses a later call may fetch). Contract: never throws.
 */
export interface CallGate {
  decide(call: GateCall): Promise<GateDecision>;
  vouched(entry: RegisteredTool, params: Record<string, unknown>, result: ToolResult): Vouched | undefined;
}

export interface CallOutcome {
  callId: string;
  tool: string | undefined;
  result: ToolResult;
  durationMs: number;
  decision?: string;
  /** What a vouching tool's third-party text vouches for (set by the gate; see `CallGate.vouched`). */
  vouched?: Vouched;
}

/**
 * `tool:before` middleware, run after validation and before the gate, so the person approves what will run: return
 * nothing to let the call through, `{ block }` to refuse it with that message, or `{ params }` to run it with other
 * arguments — validated again against the tool's schema, and audited beside the arguments the model sent.
 * `params` is the hook's own copy: changing it in place changes nothing.
 */
export type BeforeVerdict = void | undefined | { block: string } | { params: Record<string, unknown> };
export type BeforeHook = (event: { tool: string; params: Record<string, unknown>; ctx: ToolCallContext }) => BeforeVerdict | Promise<BeforeVerdict>;
/** `tool:after` middleware: return nothing to keep the result, or `{ result }` to replace it (e.g. redacted). */
export type AfterVerdict = void | undefined | { result: ToolResult };
export type AfterHook = (event: { tool: string; params: Record<string, unknown>; ctx: ToolCallContext; result: ToolResult; durationMs: number }) => AfterVerdict | Promise<AfterVerdict>;

export interface AuditRecord {
  callId: string;
  conversationId: string;
  turnId: string;
  tool: string;
  input: string;
  output: string;
  error: string | undefined;
  success: boolean;
  durationMs: number;
  decision: string | undefined;
  /** The arguments as the model sent them, when a `tool:before` hook rewrote them (`input` is what ran). */
  requestedInput?: string;
}
