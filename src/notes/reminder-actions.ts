import { currentZone } from '../lib/person-scope.js';
import type { ButtonAnswer, ButtonPress, Delivery, ReplyButton } from '../delivery/types.js';
import { failure, succeed, type Result } from '../lib/result.js';
import { formatTarget, parseTarget } from '../lib/target.js';
import type { Logger } from '../log.js';
import type { Scheduler } from '../scheduler/scheduler.js';
import type { Job, RunOutcome } from '../scheduler/types.js';
import { parseWhenText } from '../time/when.js';
import { dayOf, timeOf } from './dates.js';
import type { DeliveredReminder, ReminderStore } from './reminder-store.js';
import type { TaskService } from './tasks.js';
import type { ChatOrigin } from './types.js';

/** How long a snooze lasts, in the words the one `when` parser reads (so "tomorrow" is 09:00 as everywhere). */
export const SNOOZES = { '10m': 'in 10 minutes', '1h': 'in 1 hour', tomorrow: 'tomorrow' } as const;
export type SnoozeChoice = keyof typeof SNOOZES;
type Choice = SnoozeChoice | 'done';

/** Button data is `remind:<token>:<choice>`; the token is random, so a forged press cannot name another delivery. */
const BUTTON_DATA = /^remind:([A-Za-z0-9_-]{16}):(10m|1h|tomorrow|done)$/;

export const NOT_YOURS = 'Not yours: only the person this reminder is for, in the chat that got it, can answer it.';
export const GONE = 'This reminder is no longer open.';

export interface ReminderActionsDeps {
  store: ReminderStore;
  scheduler: Scheduler;
  tasks: TaskService;
  /** The daemon's zone; a person in a household reads their own (`currentZone`). */
  timeZone: string;
  log: Logger;
  now: () => number;
  /** The one way to a chat (absent: a reminder is kept in the run log, not sent). */
  delivery?: Delivery | undefined;
  /** A task reminder's job (`task-…`): its time is the task's ⏰, so a snooze moves that. */
  isTaskReminder: (jobId: string) => boolean;
}

/**
 * What a delivered reminder carries and what can be done with it: Snooze (10 min, 1 h, tomorrow) and Done, as
 * buttons on the message and as /snooze and /done. Each delivery is answered once (ReminderStore.claim): a snooze
 * re-arms the reminder exactly once, Done ticks its task (or just the reminder).
 */
export class ReminderActions {
  private readonly deps: ReminderActionsDeps;

  constructor(deps: ReminderActionsDeps) {
    this.deps = deps;
  }

  /** Delivers a reminder with its buttons, through the one delivery path, and keeps the delivery. Contract: never throws. */
  async deliver(job: Job, text: string, about: { body: string; task?: string | undefined }): Promise<RunOutcome> {
    const { delivery, store } = this.deps;
    if (!delivery) return { status: 'ok', output: text, error: 'not delivered: no chat channel runs here' };
    const target = delivery.targetFor(job.origin, job.deliverTo);
    const context = { kind: 'reminder' as const, id: job.id, outside: job.sources };
    const userId = job.origin && delivery.chatOf(job.origin) === target ? job.origin.userId : undefined;
    const token = target === undefined ? undefined : store.record({
      jobId: job.id, target, userId, text: about.body, task: about.task, sources: job.sources, deliveredAt: this.deps.now(),
    });
    const delivered = await delivery.deliver(target, { text, ...(token ? { buttons: buttonsFor(token) } : {}) }, context);
    const shown = delivery.render(text, context);
    if (delivered.deliveredTo !== undefined) return { status: 'ok', output: text, shown, deliveredTo: delivered.deliveredTo };
    if (token) store.forget(token);
    // Nowhere to send it is the person's set-up, not a failed run; a channel that failed to take it is.
    return { status: target === undefined ? 'ok' : 'failed', output: text, shown, error: delivered.error };
  }

  /** A button pressed under a delivered reminder. Contract: never throws; undefined for another part's button. */
  async press(press: ButtonPress): Promise<ButtonAnswer | undefined> {
    const match = BUTTON_DATA.exec(press.data);
    if (!match?.[1]) return undefined;
    const delivered = this.deps.store.get(match[1]);
    if (!delivered) return { notice: GONE };
    const mayAnswer = press.allowed && delivered.target === formatTarget(press) && (delivered.userId === undefined || delivered.userId === press.userId);
    if (!mayAnswer) {
      this.deps.log.warn({ channel: press.channel, chatId: press.chatId, userId: press.userId, jobId: delivered.jobId }, 'reminder button pressed by someone else, or in another chat; ignored');
      return { notice: NOT_YOURS };
    }
    try {
      const answered = await this.act(delivered, (match[2] ?? 'done') as Choice);
      return answered.success ? { notice: answered.value.notice, ...(answered.value.outcome ? { outcome: answered.value.outcome } : {}) } : { notice: answered.error.slice(0, 190) };
    } catch (error) {
      this.deps.log.error({ err: error, jobId: delivered.jobId }, 'reminder button failed');
      return { notice: 'That did not work; try /snooze or /done.' };
    }
  }

  /** The last reminder delivered to a chat; the terminal and the console are the owner's and see the last one anywhere. */
  last(chat: ChatOrigin): DeliveredReminder | undefined {
    const owner = chat.channel === 'cli' || chat.channel === 'console';
    return this.deps.store.last(owner ? undefined : formatTarget(chat));
  }

  /** Snooze or Done on one delivery: what the person is told, and the line its message ends with when it counted. */
  async act(delivered: DeliveredReminder, choice: Choice): Promise<Result<{ notice: string; outcome?: string }>> {
    if (delivered.action !== undefined) return succeed({ notice: already(delivered.action, this.zone()) });
    return choice === 'done' ? this.done(delivered) : this.snooze(delivered, choice);
  }

  private async snooze(delivered: DeliveredReminder, choice: SnoozeChoice): Promise<Result<{ notice: string; outcome?: string }>> {
    const { store, scheduler } = this.deps;
    // "tomorrow" is the pressing person's tomorrow: their zone in a household.
    const timeZone = this.zone();
    const now = this.deps.now();
    const parsed = parseWhenText(SNOOZES[choice], now, timeZone);
    if (!parsed.success || parsed.value.schedule.type !== 'once') return failure('The snooze time could not be read.');
    // A task's ⏰ holds minutes: rounded up, so a snooze is never shorter than asked.
    const at = Math.ceil(parsed.value.schedule.at / 60_000) * 60_000;
    const until = `💤 Snoozed until ${this.when(at, now)}.`;
    const action = `snooze:${at}`;
    if (delivered.task !== undefined && this.deps.isTaskReminder(delivered.jobId)) {
      // A task's reminder is its ⏰ in the file: moving it re-times the task's job (TaskReminders.follow).
      if (!store.claim(delivered.token, action, now)) return this.again(delivered);
      const moved = await this.deps.tasks.update(delivered.task, { reminder: `${dayOf(at, timeZone)} ${timeOf(at, timeZone)}` }, { chat: originOf(delivered) });
      if (!moved.success) {
        store.release(delivered.token);
        return failure(`Not snoozed: ${moved.error}`);
      }
      return succeed({ notice: until, outcome: until });
    }
    // Any other reminder comes back once as a one-shot of its own, for the same chat; written with the claim, so a
    // second press (or a restart between the two) can never make it twice.
    const made = store.atomically(() => {
      if (!store.claim(delivered.token, action, now)) return false;
      const created = scheduler.create({
        kind: 'reminder', prompt: delivered.text, run_at: new Date(at).toISOString(), spec: `snoozed: ${SNOOZES[choice]}`,
        origin: originOf(delivered), source: 'chat', sources: delivered.sources,
      });
      if (!created.success) throw new Error(created.error);
      if (delivered.task !== undefined) store.link(created.value.id, delivered.task);
      return true;
    });
    return made ? succeed({ notice: until, outcome: until }) : this.again(delivered);
  }

  private async done(delivered: DeliveredReminder): Promise<Result<{ notice: string; outcome?: string }>> {
    const { store, tasks } = this.deps;
    const now = this.deps.now();
    if (!store.claim(delivered.token, 'done', now)) return this.again(delivered);
    if (delivered.task === undefined) return succeed({ notice: 'Done', outcome: '✅ Done.' });
    const found = tasks.files.find(delivered.task);
    if (found.success && !found.value.open) return succeed({ notice: 'Done', outcome: `✅ Done (the task "${found.value.description}" was already ticked).` });
    const completed = await tasks.complete(delivered.task, { chat: originOf(delivered) });
    if (!completed.success) {
      store.release(delivered.token);
      return failure(`Not done: ${completed.error}`);
    }
    return succeed({ notice: 'Done', outcome: `✅ Done: "${completed.value.description}" is ticked.` });
  }

  /** Someone (or another surface) answered this delivery a moment ago. */
  private again(delivered: DeliveredReminder): Result<{ notice: string }> {
    const action = this.deps.store.get(delivered.token)?.action;
    return succeed({ notice: action !== undefined ? already(action, this.zone()) : GONE });
  }

  private zone(): string {
    return currentZone(this.deps.timeZone);
  }

  private when(at: number, now: number): string {
    const timeZone = this.zone();
    const day = dayOf(at, timeZone);
    return day === dayOf(now, timeZone) ? timeOf(at, timeZone) : `${day} ${timeOf(at, timeZone)}`;
  }
}

function buttonsFor(token: string): ReplyButton[] {
  return [
    { label: '💤 10 min', data: `remind:${token}:10m` },
    { label: '💤 1 h', data: `remind:${token}:1h` },
    { label: '💤 Tomorrow', data: `remind:${token}:tomorrow` },
    { label: '✅ Done', data: `remind:${token}:done` },
  ];
}

/** The chat a delivery went to, as the origin of what it brings back (a snoozed reminder, a ticked task). */
function originOf(delivered: DeliveredReminder): ChatOrigin {
  const { channel, chatId } = parseTarget(delivered.target);
  return { channel, chatId, ...(delivered.userId !== undefined ? { userId: delivered.userId } : {}) };
}

function already(action: string, timeZone: string): string {
  if (action === 'done') return 'Already done.';
  const at = Number(action.slice('snooze:'.length));
  return Number.isFinite(at) ? `Already snoozed until ${dayOf(at, timeZone)} ${timeOf(at, timeZone)}.` : GONE;
}
