import type { DueTasks, FailedRuns, Probe, SoonEvents, UnclaimedTriggers, UnseenMail } from './types.js';

/** At most this many unread messages are looked at per beat (the newest). */
const MAIL_LIMIT = 50;
/** Failed runs older than this are not news (a first beat does not dig up last month's failures). */
const FAILURES_WINDOW_MS = 7 * 86_400_000;

/**
 * Unread mail: IMAP SEARCH UNSEEN and the envelopes (no body), keyed by Message-ID. Sender and subject are the
 * sender's words, so they are outside content (`email:<account>/INBOX`, the email tool's own label).
 */
export function mailProbe(mail: UnseenMail): Probe {
  const source = `email:${mail.account}/INBOX`;
  return {
    name: 'mail',
    async check() {
      const messages = await mail.unseen(MAIL_LIMIT);
      return messages.map((message) => ({
        key: message.messageId ?? `uid:${message.uid}`,
        text: `unread mail from ${message.from || '(no sender)'}: ${message.subject || '(no subject)'}`,
        outside: source,
      }));
    },
  };
}

/** Open tasks due today or overdue, keyed by the task and its due day (a task moved to a new day is new again). */
export function tasksProbe(dueTasks: DueTasks, today: (now: number) => string): Probe {
  return {
    name: 'tasks',
    async check(now) {
      const day = today(now);
      return dueTasks(day).map((task) => ({
        key: `${task.path}\u0000${task.ref}\u0000${task.due ?? ''}`,
        text: `task ${task.due !== undefined && task.due < day ? `overdue since ${task.due}` : 'due today'}: ${task.description}`,
      }));
    },
  };
}

/** Scheduled runs that failed in the last week, keyed by run. */
export function failedJobsProbe(failedRuns: FailedRuns): Probe {
  return {
    name: 'jobs',
    async check(now) {
      return failedRuns(now - FAILURES_WINDOW_MS).map((run) => ({
        key: String(run.id),
        text: `the scheduled job "${run.jobId}" failed: ${(run.error ?? 'no reason given').slice(0, 200)}`,
      }));
    },
  };
}

/** How far ahead "starting soon" looks. */
const SOON_MS = 2 * 3_600_000;

/**
 * Calendar events starting in the next two hours, keyed by event and occurrence (a moved occurrence is new again).
 * An invitation's or a feed's title is a third party's words: outside content, labelled with the calendar's source.
 */
export function eventsProbe(soonEvents: SoonEvents, clock: (at: number) => string): Probe {
  return {
    name: 'events',
    async check(now) {
      const events = await soonEvents(now, now + SOON_MS);
      return events.filter((event) => event.start >= now).map((event) => ({
        key: `${event.key}\u0000${event.start}`,
        text: `event starting at ${clock(event.start)}: ${event.summary}${event.location ? ` @ ${event.location}` : ''}`,
        ...(event.outside ? { outside: event.outside } : {}),
      }));
    },
  };
}

/** Triggers older than this are not news. */
const INBOX_WINDOW_MS = 7 * 86_400_000;

/**
 * New items of the trigger inbox that no `trigger:` job took (a webhook or a mail nobody scheduled anything for),
 * keyed by trigger id. Their summaries are the senders' words: outside content, labelled with the trigger's source.
 */
export function inboxProbe(unclaimed: UnclaimedTriggers): Probe {
  return {
    name: 'inbox',
    async check(now) {
      return unclaimed(now - INBOX_WINDOW_MS).map((item) => ({ key: item.id, text: `trigger ${item.source}: ${item.summary}`, outside: item.source }));
    },
  };
}
