import type { CallOrigin } from '../tools/types.js';

/** `agent` runs an LLM turn with the prompt; `reminder` delivers the text as it is, with no LLM call. */
export type JobKind = 'agent' | 'reminder';
export type CatchUp = 'once' | 'skip';
/** Where the job was made: a chat (through the `schedule` tool or `/remind`), the terminal, or config.yaml. */
export type JobSource = 'chat' | 'cli' | 'config';

export interface Job {
  id: string;
  kind: JobKind;
  /** Recurring jobs: a 5- or 6-field cron expression in `tz`. */
  cron: string | undefined;
  /** One-shots: the instant (ms). */
  runAt: number | undefined;
  /** The schedule as it was given ("every weekday at 8", a cron, an ISO time). */
  spec: string;
  prompt: string;
  catchUp: CatchUp;
  origin: CallOrigin | undefined;
  /** An explicit target (`telegram:123`), from config. */
  deliverTo: string | undefined;
  /** Trigger jobs: run once per inbound trigger of this source (no cron, no run_at). */
  trigger: JobTrigger | undefined;
  /** High-risk tools this job may call unattended. */
  approve: string[];
  /**
   * Outside sources in play when the job was made (empty: the person's own). Its runs start with them: the prompt
   * is treated as outside content and its calls are gated as in any tainted turn.
   */
  sources: string[];
  enabled: boolean;
  source: JobSource;
  /** In a household, the person who made it: it runs as them (their tools, budget, memory). Absent: the owner's. */
  person?: string;
  tz: string;
  /** The next scheduled time not yet claimed; undefined when paused-and-done or finished. */
  nextRunAt: number | undefined;
  lastScheduledAt: number | undefined;
  /** One-shots: when their one run was claimed. */
  doneAt: number | undefined;
  configHash: string | undefined;
  createdAt: number;
  updatedAt: number;
}

/** `source`: `mail` or `webhook:<name>`; `match`: the phrases one of which the trigger must carry (lib/phrases.ts). */
export interface JobTrigger {
  source: string;
  match?: string | undefined;
}

/** An inbound trigger as the scheduler gets it from the inbox (src/triggers/); its text is outside content. */
export interface TriggerEvent {
  id: string;
  source: string;
  /** Unique across triggers: the run's `scheduled_for`, so the ledger holds one run per job and trigger. */
  receivedAt: number;
  summary: string;
  payload: string;
}

/** What the scheduler reads and marks in the trigger inbox (the root hands it the inbox). */
export interface TriggerFeed {
  pending(): TriggerEvent[];
  markDispatched(id: string, jobs: readonly string[]): void;
}

export type RunStatus = 'running' | 'ok' | 'failed' | 'skipped' | 'missed' | 'interrupted';
/** `schedule`: on time; `catch_up`: late after downtime; `manual`: `familiar jobs run`; `trigger`: an inbound trigger. */
export type RunTrigger = 'schedule' | 'catch_up' | 'manual' | 'trigger';

export interface JobRun {
  id: number;
  jobId: string;
  scheduledFor: number;
  trigger: RunTrigger;
  status: RunStatus;
  startedAt: number;
  endedAt: number | undefined;
  durationMs: number | undefined;
  error: string | undefined;
  /** The first characters of the result. */
  output: string | undefined;
  deliveredTo: string | undefined;
}

/** What one execution produced, before it is written to the ledger. */
export interface RunOutcome {
  status: 'ok' | 'failed' | 'interrupted';
  output: string;
  error?: string;
  deliveredTo?: string;
  /** The text as the person is shown it (made from outside content: said so, links inert); not kept in the run log. */
  shown?: string;
}
