/**
 * What a tool may use of the daemon's shared subsystems, as small interfaces the subsystems implement
 * (memory/store.ts, scheduler/access.ts, sandbox/pool.ts). The tool contract depends on these, not on the
 * subsystems, so a tool module — built in or the person's own — needs nothing above `tools/`.
 */
import type { Result } from '../lib/result.js';

/** Where a call comes from: the chat that started the turn, or an unattended job or skill run. */
export interface CallOrigin {
  channel: string;
  chatId: string;
  userId?: string;
}

export interface MemoryFileInfo {
  path: string;
  size: number;
  mtimeMs: number;
}

/**
 * An entry found by memory search: a file's lines, or a message of a past chat (its conversation as `path`, lines 0,
 * and `conversation`: who said it, when, the outside sources in play when it was made, the turn that made it).
 */
export interface MemoryHit {
  path: string;
  startLine: number;
  endLine: number;
  snippet: string;
  conversation?: { id: string; role: 'user' | 'assistant'; at: number; sources: readonly string[]; turnId: string | null };
}

/** The memory folder: Markdown files the person can edit by hand. Paths are relative and confined to it. */
export interface MemoryAccess {
  list(): MemoryFileInfo[];
  /** Throws when the path leaves the folder or the file does not exist. */
  read(path: string): string;
  /** Atomic; `conversationId` records who wrote it (history, undo, the hand-edit guard). */
  write(path: string, content: string, options?: { mode?: 'overwrite' | 'append'; conversationId?: string }): Promise<{ path: string; bytes: number; previous: string | null }>;
  /** Full-text search by entry (list item or paragraph, or a past chat's message): the file and lines of each. */
  search(query: string, limit?: number): MemoryHit[];
  /**
   * Hybrid search: full text and, when an embedder is configured, meaning, fused by rank. Falls back to full text
   * alone (and says so in the log) when the embedder fails. Absent: `search` is all there is.
   */
  recall?(query: string, limit?: number): Promise<MemoryHit[]>;
  /**
   * The outside source a file's text came from (a web page saved as a note, a file written while outside content
   * was in play), or undefined for the person's own. A tool that returns such text must treat it as outside
   * content: wrap it (`wrapExternal`) and set `externalSource`.
   */
  outsideSource(path: string, content: string): string | undefined;
}

export interface JobRequest {
  /** What the job does: the prompt of an agent turn, or a reminder's text. */
  prompt: string;
  kind?: 'agent' | 'reminder';
  /** Exactly one of cron, run_at and when. */
  cron?: string;
  run_at?: string;
  when?: string;
  id?: string;
  catchUp?: 'once' | 'skip';
  /** The chat that made it: results go there. */
  origin?: CallOrigin;
  /** Outside sources its text came from (a calendar invitation's alarm): delivered saying so. */
  sources?: string[];
}

export interface JobView {
  id: string;
  kind: 'agent' | 'reminder';
  /** The schedule as given ("every weekday at 8", a cron, an ISO time). */
  spec: string;
  prompt: string;
  enabled: boolean;
  nextRunAt: number | undefined;
  origin: CallOrigin | undefined;
}

/** Jobs and reminders, timed in the daemon's time zone. */
export interface SchedulerAccess {
  readonly timeZone: string;
  create(request: JobRequest): Result<JobView>;
  /** The jobs of one chat, or every job when no origin is given. */
  list(origin?: Pick<CallOrigin, 'channel' | 'chatId'>): JobView[];
  remove(id: string): boolean;
}

export interface SandboxStream {
  /** Every byte the stream produced, kept or not. */
  readonly total: number;
  /** Bytes counted but not kept (over the cap). */
  readonly dropped: number;
  text(): string;
}

export interface SandboxRun {
  exitCode: number | null;
  stdout: SandboxStream;
  stderr: SandboxStream;
  timedOut: boolean;
  cancelled: boolean;
  oomKilled: boolean;
}

/** Commands in a workspace's Docker container (the call's `workspaceIdOf(ctx)`), with that workspace at /workspace. */
export interface SandboxAccess {
  run(workspaceId: string, request: { command: string; timeoutMs: number; network?: boolean; guest?: string; signal?: AbortSignal }): Promise<SandboxRun>;
  /** A fresh container for one command (a coding agent), with a workspace folder and its own environment. */
  runOneOff(workspaceDir: string, request: { cmd: string[]; timeoutMs: number; image?: string; network: 'none' | 'bridge'; env?: string[]; signal?: AbortSignal }): Promise<SandboxRun>;
}
