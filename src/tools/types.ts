import type { Config } from '../config/schema.js';
import type { Database } from '../db/database.js';
import type { LlmClient } from '../llm/types.js';
import type { Logger } from '../log.js';
import type { Approvals } from '../approval/gate.js';
import type { McpManager } from '../mcp/manager.js';
import type { SkillService } from '../skills/service.js';
import type { MemoryStore } from '../memory/store.js';
import type { ContainerPool } from '../sandbox/pool.js';
import type { Scheduler } from '../scheduler/scheduler.js';
import type { ImapSession } from './email/imap.js';

export type JsonSchema = Record<string, unknown>;

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
}

export type Risk = 'low' | 'high';

/**
 * Shared services, built once at start-up by the composition root. Tools never open their own
 * connections to shared subsystems; optional members exist only when their section is configured.
 */
export interface ToolContext {
  config: Config;
  log: Logger;
  db: Database;
  memory: MemoryStore;
  llm: LlmClient;
  /** Secret values from config: redacted from tool output. */
  secrets: readonly string[];
  // Subsystems that exist only when configured add their optional member here (scheduler, pool, ...).
  /** Approval gate for high-risk calls; channels register their ApprovalPrompter here. */
  approvals?: Approvals;
  /** MCP servers (tools `mcp:<server>:<tool>`); `connectNow` for commands that do not start modules. */
  mcp?: McpManager;
  /** Skills in `skills_dir` (list, run, manage, install); set by the skills installer. */
  skills?: SkillService;
  /** Docker containers per conversation; present when `tools.sandbox` is configured and the engine answers. */
  pool?: ContainerPool;
  /** Cron and one-shot jobs (the `schedule` tool); set by the scheduler's installer. */
  scheduler?: Scheduler;
  /** The email tool's IMAP session (one connection for the daemon) and its account; set when tools.email is configured. */
  mailbox?: { session: ImapSession; account: string };
}

/** Where a call comes from: the chat that started the turn, or an unattended job or skill run. */
export interface CallOrigin {
  channel: string;
  chatId: string;
  userId?: string;
}

/** The per-call view a tool gets: the shared context plus this call's identity, deadline and origin. */
export interface ToolCallContext extends ToolContext {
  conversationId: string;
  turnId: string;
  callId: string;
  signal: AbortSignal;
  origin: CallOrigin;
  /** True for scheduled jobs and skill runs, which nobody is watching. */
  unattended: boolean;
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
  /** Fixed, or decided per call (`http` GET is low, POST high). Default low. */
  risk?: Risk | ((params: P) => Risk);
  /** Results carry outside content (web, mail, MCP): the turn becomes tainted. */
  external?: boolean;
  /** Deadline for one call, overriding `tools.timeout_s` (itself overridden by `tools.timeouts.<name>`). */
  timeoutMs?: number;
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
