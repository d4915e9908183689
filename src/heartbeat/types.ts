/**
 * What the heartbeat's probes are: deterministic checks (no model) that say what is new since the last beat. A new
 * source (the trigger inbox, calendar events starting soon, standing intents) is one more `Probe`.
 */

/** One thing a probe found. `key` identifies it for good (a Message-ID, a task and its due day, a run's id). */
export interface ProbeItem {
  key: string;
  /** One line for the model's prompt. */
  text: string;
  /** Set when `text` carries words a third party wrote (a mail's subject and sender): the source's label. */
  outside?: string;
}

export interface Probe {
  /** `mail`, `tasks`, `jobs`, `events`, `inbox`: names the probe in state, status and the prompt. */
  name: string;
  /** Everything the probe sees now; the heartbeat keeps what was already reported. Contract: may throw (logged). */
  check(now: number): Promise<ProbeItem[]>;
}

/** Unread mail as the mail probe reads it (made by the email part over its one IMAP connection). */
export interface UnseenMail {
  account: string;
  /** IMAP SEARCH UNSEEN with each message's envelope; marks nothing seen. */
  unseen(limit: number): Promise<Array<{ uid: number; messageId: string | undefined; from: string; subject: string }>>;
}

/** Open tasks due on or before a local day (`YYYY-MM-DD`), from the Markdown task files. */
export type DueTasks = (day: string) => Array<{ ref: string; path: string; description: string; due: string | undefined }>;

/** Scheduled runs that failed since a moment (the scheduler's run ledger). */
export type FailedRuns = (since: number) => Array<{ id: number; jobId: string; error: string | undefined; startedAt: number }>;

/** Calendar events starting within a window (made by the calendar part, expanded on the client). */
export type SoonEvents = (from: number, to: number) => Promise<Array<{ key: string; start: number; summary: string; location?: string; outside?: string }>>;
/** Triggers in the inbox that no job took, since a moment (src/triggers/). */
export type UnclaimedTriggers = (since: number) => Array<{ id: string; source: string; summary: string }>;
