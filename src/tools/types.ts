import type { Config } from '../config/schema.js';
import type { Logger } from '../log.js';
import type { CallOrigin, MemoryAccess, SandboxAccess, SchedulerAccess } from './context.js';
import type { Effect } from './effects.js';
import type { FamiliarEvent } from './events.js';

export type JsonSchema = Record<string, unknown>;

/** A tool as offered to the model: the OpenAI Chat Completions `tools` entry. */
export interface FunctionSchema {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchema };
}

export interface Artifact {
  type: 'file' | 'image' | 'json';
  name: string;
  content: Buffer | string;
  mimeType?: string;
}

export interface ToolResult {
  success: boolean;
  /** What the model reads: on failure, what went wrong and what to do next. */
  output: string;
  artifacts?: Artifact[];
  /** Set when the output carries content from outside (web, mail, MCP): names the source, for taint tracking. */
  externalSource?: string;
  /**
   * What third parties wrote in `output`, each exactly as it appears there (a page's text, a mail, search results,
   * an MCP server's answer): never the tool's own framing, a header it composed, an error message, or anything that
   * repeats the call's arguments. Only these vouch for an address a later call may fetch in a tainted turn, and only
   * for a tool that `vouches`. The registry keeps what of them the model is shown (after redaction and the cap).
   */
  thirdParty?: readonly string[];
}

export type Risk = 'low' | 'high';

/**
 * Shared services, built once by the composition root and complete from then on: tools read and write memory,
 * manage scheduled jobs, use the Docker sandbox and read the configuration without opening anything themselves.
 * The members are typed by the small interfaces in `./context.ts`, which the subsystems implement, so the tool
 * contract depends on no subsystem. What no tool reads (approvals, MCP, skills) is not here: the parts that use
 * those get them as dependencies.
 */
export interface ToolContext {
  config: Config;
  log: Logger;
  /** Secret values from config: redacted from tool output. */
  secrets: readonly string[];
  memory: MemoryAccess;
  /** Cron and one-shot jobs in this daemon's time zone. */
  scheduler: SchedulerAccess;
  /** Docker containers per conversation; present when `tools.sandbox` is configured. */
  pool?: SandboxAccess;
}

export type { CallOrigin };

/**
 * What a running call may tell the turn while it works. `progress`: how far it got (an MCP server's progress
 * notification); the turn's watcher shows it, and it moves the call's deadline (see `NativeTool.maxTimeoutMs`).
 * Further kinds are added here, as a union on `type`.
 */
export type ToolEvent = { type: 'progress'; progress: number; total?: number; message?: string };

/** The per-call view a tool gets: the shared context plus this call's identity, deadline and origin. */
export interface ToolCallContext extends ToolContext {
  conversationId: string;
  /**
   * The call's workspace and sandbox container (src/workspace/workspace-key.ts): the conversation's id, or in a
   * household's group the person's own `<conversation>@<name>`. Read it with `workspaceIdOf(ctx)`; set by the registry.
   */
  workspaceId?: string;
  turnId: string;
  callId: string;
  signal: AbortSignal;
  origin: CallOrigin;
  /** True for scheduled jobs and skill runs, which nobody is watching. */
  unattended: boolean;
  /** Outside sources in play in the turn (empty: only the person's own words and data). */
  taint: readonly string[];
  /**
   * The gate's word for this call (src/gate/gate.ts): the workspace's existing files are read-only to it — it may
   * read them and make new files, not change or delete the person's (src/sandbox/guest.ts). Set in a turn holding
   * outside content unless the person said yes to a call that declares a `modify` effect.
   */
  guest?: boolean;
  /**
   * Sends an event to whoever listens (`EventBus`, src/tools/events.ts), marked with this tool and call: progress, a
   * reading, anything of the tool's own `type` (the daemon's own names are refused). A `progress` event
   * (`ToolEvent`) also reaches the turn's watcher and moves the call's deadline (`NativeTool.maxTimeoutMs`).
   * Never throws. Set by the registry on every call; optional only so that contexts made by hand (tests, one-off
   * runs) need not fake it.
   */
  emit?(event: FamiliarEvent | ToolEvent): void;
  /** The person's text of this turn, or the job's prompt ('' when the call was made outside a turn). */
  input?: string;
  /**
   * Shared by the tool calls of one turn or run (seed 001's per-run state): one call leaves something, a later call
   * of the same turn finds it. Dropped when the turn ends. Set by the registry on every call.
   */
  state?: Map<string, unknown>;
  /**
   * Stops the run cleanly (seed 001's `cancel()`): this call's own result is kept, the calls running beside it are
   * cancelled, and no further tool call or model step is made; the person is told `reason`. Set by the registry.
   */
  cancel?(reason?: string): void;
}

export interface NativeTool<P = Record<string, unknown>> {
  /** Canonical name; if it is not function-safe (`mcp:github:search`) a safe alias is derived. */
  name: string;
  description: string;
  /** JSON Schema of the arguments (an object schema). */
  parameters: JsonSchema;
  aliases?: readonly string[];
  /** Group for policy patterns such as `memory.*`; defaults to the name's prefix before `_` or `:`. */
  group?: string;
  /**
   * Named permissions every call needs (`email.read`, `files.write`: ./permissions.ts): an agent with a grant list
   * is offered the tool only when it holds them all. Undeclared: the tool needs `tool:<name>`.
   */
  permissions?: readonly string[];
  /** Permissions some calls need beyond `permissions` (`email` action "send" needs `email.send`); the gate checks them. */
  callPermissions?: (params: P) => readonly string[];
  /** Fixed, or decided per call (`http` GET is low, POST high). Default low. */
  risk?: Risk | ((params: P) => Risk);
  /** Results carry outside content (web, mail, MCP): the turn becomes tainted. */
  external?: boolean;
  /**
   * Its results are third parties' words the model did not write (a fetched page, search results, mail, an MCP
   * server's answer), so an address that appears in them may be fetched in a tainted turn (src/gate/provenance.ts). A
   * tool whose output can carry the model's own text — a sandbox command's output, a memory file, a note — must
   * not say so: otherwise `echo https://evil/?d=SECRET` would vouch for that address. Default: false.
   */
  vouches?: boolean;
  /**
   * What a call can do beyond answering (`./effects.ts`): send data out, change what outlives the turn, install.
   * In a turn that holds outside content the trust policy gates these by where their inputs came from. A tool that
   * declares nothing is treated as able to send data anywhere.
   */
  effects?: readonly Effect[] | ((params: P) => readonly Effect[]);
  /**
   * A call changes nothing anywhere (it reads memory, notes, a list): running it twice is the same as once. A step of
   * only such calls is stored with the turn's next step instead of in a commit of its own (src/agent/agent.ts). Not
   * the same as declaring no `effects`: a call that changes the daemon's own state (cancels an intent, runs a skill)
   * declares no effect and is not read-only. Default: false.
   */
  readOnly?: boolean;
  /** Lines the approval question adds about what the call would do (e.g. the tools and approve list a skill gets). */
  explain?: (params: P) => string[];
  /** Deadline for one call, overriding `tools.timeout_s` (itself overridden by `tools.timeouts.<name>`). */
  timeoutMs?: number;
  /**
   * A call that emits `progress` is alive: each event moves its deadline to one timeout after the event, but
   * never past this long after the call started. Absent: progress does not move the deadline.
   */
  maxTimeoutMs?: number;
  execute(params: P, ctx: ToolCallContext): Promise<ToolResult>;
}

// Tools are registered with heterogeneous parameter types; the registry validates before calling.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = NativeTool<any>;

export function ok(output: string, extra: Omit<ToolResult, 'success' | 'output'> = {}): ToolResult {
  return { success: true, output, ...extra };
}

export function fail(output: string): ToolResult {
  return { success: false, output };
}

/** The workspace a call works in: its `workspaceId`, else (a context made by hand) its conversation's. */
export function workspaceIdOf(ctx: Pick<ToolCallContext, 'conversationId' | 'workspaceId'>): string {
  return ctx.workspaceId ?? ctx.conversationId;
}
