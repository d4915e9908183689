import { parseWhenText } from '../time/when.js';
import { addDays, dayOf, daysBetween, isDay, isTime, timeOf } from './dates.js';
import { fileNameFor } from './note-files.js';
import { dueWithReminder, firstOccurrence, nextOccurrence, parseRecurrence } from './recurrence.js';
import { TASK_LISTS_DIR, TASKS_FILE, newTaskId, parseTaskFile, type FileEdit, type Task, type TaskFile, type TaskFiles } from './task-files.js';
import { parseTaskLine, plainDescription, setDescription, setField, setStatus, type FieldKind, type Priority } from './task-line.js';
import { failure, succeed, type Result } from '../lib/result.js';

export interface TaskInput {
  description: string;
  list?: string;
  due?: string;
  scheduled?: string;
  start?: string;
  recurrence?: string;
  priority?: Priority;
  /** `YYYY-MM-DD HH:mm`, `HH:mm` on the due day, or a time in words ("tomorrow at 3pm"). */
  reminder?: string;
  tags?: readonly string[];
}

export interface TaskPatch {
  description?: string;
  /** null clears a field. */
  due?: string | null;
  scheduled?: string | null;
  start?: string | null;
  recurrence?: string | null;
  priority?: Priority | null;
  reminder?: string | null;
  status?: 'open' | 'done' | 'cancelled' | 'in_progress';
}

export interface TaskFilter {
  status?: 'open' | 'done' | 'all';
  dueBefore?: string;
  dueAfter?: string;
  list?: string;
  tag?: string;
  text?: string;
  limit?: number;
}

const PRIORITY_ORDER: Readonly<Record<Priority, number>> = { highest: 0, high: 1, medium: 2, low: 3, lowest: 4 };

/**
 * Creating, changing, completing and finding tasks, on top of TaskFiles. Each change touches only the lines
 * it changes; `onChange` hears of every task written (reminders follow it).
 */
export class TaskService {
  readonly files: TaskFiles;
  private readonly timeZone: string;
  private readonly now: () => number;
  private readonly onChange: (tasks: readonly Task[], origin: { conversationId?: string; chat?: { channel: string; chatId: string; userId?: string } }) => void;

  constructor(options: {
    files: TaskFiles;
    timeZone: string;
    now?: () => number;
    onChange?: (tasks: readonly Task[], origin: { conversationId?: string; chat?: { channel: string; chatId: string; userId?: string } }) => void;
  }) {
    this.files = options.files;
    this.timeZone = options.timeZone;
    this.now = options.now ?? Date.now;
    this.onChange = options.onChange ?? (() => undefined);
  }

  today(): string {
    return dayOf(this.now(), this.timeZone);
  }

  /** The file of a list: `tasks` (or nothing) is tasks.md, another name `tasks/<name>.md`, a path stays a path. */
  pathOfList(list: string | undefined): Result<string> {
    const name = (list ?? '').trim();
    if (name === '' || name.toLowerCase() === 'tasks' || name === TASKS_FILE) return succeed(TASKS_FILE);
    if (/\.md$/i.test(name)) {
      if (this.files.paths().includes(name)) return succeed(name);
      if (!name.startsWith(`${TASK_LISTS_DIR}/`)) return failure(`There is no task file ${name}; name a list (e.g. "shopping") or an existing file.`);
      return succeed(name);
    }
    return succeed(`${TASK_LISTS_DIR}/${fileNameFor(name)}.md`);
  }

  /** The line a new task gets (fields in Obsidian Tasks' order), or what is wrong with the input. */
  buildLine(input: TaskInput, id = newTaskId()): Result<string> {
    let description = plainDescription(input.description);
    if (description === '') return failure('The task needs a description.');
    for (const tag of input.tags ?? []) {
      const clean = tag.trim().replace(/^#/, '').replace(/\s+/g, '-');
      if (clean !== '' && !description.includes(`#${clean}`)) description += ` #${clean}`;
    }
    const checked = this.checkDates(input);
    if (!checked.success) return checked;
    let due = input.due;
    let recurrence: string | undefined;
    if (input.recurrence !== undefined && input.recurrence.trim() !== '') {
      const parsed = parseRecurrence(input.recurrence.replace(/^🔁\s*/u, ''));
      if (!parsed) return failure(`"${input.recurrence}" is not a recurrence I understand; write it as Obsidian Tasks does: "every day", "every week on Monday", "every month on the 1st", "every 2 weeks", "every year", optionally ending "when done".`);
      recurrence = parsed.text;
      // A recurring task needs a date to recur from: the first occurrence from today.
      if (due === undefined && input.scheduled === undefined && input.start === undefined) {
        const first = firstOccurrence(parsed, this.today());
        const time = input.reminder?.trim().replace(/^⏰\s*/u, '');
        due = first === undefined ? undefined : dueWithReminder(parsed, first, time !== undefined && isTime(time) ? time.padStart(5, '0') : undefined, this.now(), this.timeZone);
      }
    }
    const reminder = this.reminderValue(input.reminder, due);
    if (!reminder.success) return reminder;
    let line = `- [ ] ${description}`;
    const set = (kind: FieldKind, value: string | undefined) => {
      if (value !== undefined) line = setField(line, kind, value);
    };
    set('priority', input.priority);
    set('recurrence', recurrence);
    set('start', input.start);
    set('scheduled', input.scheduled);
    set('due', due);
    set('reminder', reminder.value);
    set('id', id);
    return succeed(line);
  }

  async create(input: TaskInput, origin: { conversationId?: string; chat?: { channel: string; chatId: string; userId?: string } } = {}): Promise<Result<Task>> {
    const path = this.pathOfList(input.list);
    if (!path.success) return path;
    const line = this.buildLine(input);
    if (!line.success) return line;
    const result = await this.files.change(path.value, (file) => appendLine(file, line.value, path.value), origin.conversationId);
    if (!result.success) return result;
    const task = result.value.touched[0];
    if (!task) return failure('The task was not written.');
    this.onChange([task], origin);
    return succeed(task);
  }

  async update(reference: string, patch: TaskPatch, origin: { conversationId?: string; chat?: { channel: string; chatId: string; userId?: string } } = {}): Promise<Result<Task>> {
    if (patch.status === 'done') return this.complete(reference, origin);
    const checked = this.checkDates({ description: '', ...definedOnly(patch) });
    if (!checked.success) return checked;
    const found = this.files.find(reference);
    if (!found.success) return found;
    const ref = found.value.ref;
    const result = await this.files.change(found.value.path, (file) => {
      const task = this.locate(file, ref, found.value);
      if (!task.success) return task;
      let line = task.value.raw;
      if (patch.description !== undefined) {
        const description = plainDescription(patch.description);
        if (description === '') return failure('The description cannot be empty.');
        line = setDescription(line, description);
      }
      const dates: Array<[FieldKind, string | null | undefined]> = [['due', patch.due], ['scheduled', patch.scheduled], ['start', patch.start]];
      for (const [kind, value] of dates) if (value !== undefined) line = setField(line, kind, value ?? undefined);
      if (patch.recurrence !== undefined) {
        if (patch.recurrence === null || patch.recurrence.trim() === '') line = setField(line, 'recurrence', undefined);
        else {
          const parsed = parseRecurrence(patch.recurrence.replace(/^🔁\s*/u, ''));
          if (!parsed) return failure(`"${patch.recurrence}" is not a recurrence I understand (e.g. "every month on the 1st").`);
          line = setField(line, 'recurrence', parsed.text);
        }
      }
      if (patch.priority !== undefined) line = setField(line, 'priority', patch.priority ?? undefined);
      if (patch.reminder !== undefined) {
        const due = parseTaskLine(line)?.fields.find((entry) => entry.kind === 'due')?.value;
        const reminder = patch.reminder === null ? succeed(undefined) : this.reminderValue(patch.reminder, due);
        if (!reminder.success) return reminder;
        line = setField(line, 'reminder', reminder.value);
      }
      if (patch.status === 'open') line = setField(setField(setStatus(line, ' '), 'done', undefined), 'cancelled', undefined);
      if (patch.status === 'in_progress') line = setStatus(line, '/');
      if (patch.status === 'cancelled') line = setField(setStatus(line, '-'), 'cancelled', this.today());
      // A task without an id gets one now that it is changed anyway: its reminder and later calls can name it.
      if (task.value.id === undefined) line = setField(line, 'id', newTaskId());
      return replaceLine(file, task.value, line);
    }, origin.conversationId);
    if (!result.success) return result;
    const task = result.value.touched[0];
    if (!task) return failure('The task was not written.');
    this.onChange([task], origin);
    return succeed(task);
  }

  /**
   * Ticks a task (✅ today). A recurring one gets its next occurrence on a new line above it, its dates (and
   * reminder) moved by the recurrence, as Obsidian Tasks does.
   */
  async complete(reference: string, origin: { conversationId?: string; chat?: { channel: string; chatId: string; userId?: string } } = {}): Promise<Result<Task & { next?: Task }>> {
    const found = this.files.find(reference);
    if (!found.success) return found;
    if (found.value.done) return failure(`"${found.value.description}" is already done (✅ ${found.value.doneDate ?? 'no date'}).`);
    const ref = found.value.ref;
    const today = this.today();
    const result = await this.files.change(found.value.path, (file) => {
      const task = this.locate(file, ref, found.value);
      if (!task.success) return task;
      let line = setField(setStatus(task.value.raw, 'x'), 'done', today);
      if (task.value.id === undefined) line = setField(line, 'id', newTaskId());
      const next = task.value.recurrence !== undefined ? this.nextLine(task.value, today) : undefined;
      if (next !== undefined && !next.success) return next;
      return replaceLine(file, task.value, line, next?.value);
    }, origin.conversationId);
    if (!result.success) return result;
    const [completed, next] = result.value.touched;
    if (!completed) return failure('The task was not written.');
    this.onChange(result.value.touched, origin);
    return succeed(next ? { ...completed, next } : completed);
  }

  /** The next occurrence's line of a recurring task, completed on `today`. */
  nextLine(task: Task, today: string): Result<string> | undefined {
    const recurrence = task.recurrence !== undefined ? parseRecurrence(task.recurrence) : undefined;
    if (!recurrence) return undefined;
    const reference = task.due ?? task.scheduled ?? task.start;
    const from = recurrence.whenDone || reference === undefined ? today : reference;
    const next = nextOccurrence(recurrence, from, from);
    if (next === undefined) return undefined; // the rule has ended
    const shift = daysBetween(from, next);
    let line = setField(setField(setStatus(task.raw, ' '), 'done', undefined), 'cancelled', undefined);
    for (const kind of ['due', 'scheduled', 'start'] as const) {
      const value = task[kind];
      if (value !== undefined) line = setField(line, kind, addDays(value, shift));
    }
    if (reference === undefined) line = setField(line, 'due', next);
    if (task.reminder !== undefined) {
      const [day = '', time] = task.reminder.split(/\s+/);
      if (isDay(day)) line = setField(line, 'reminder', time ? `${addDays(day, shift)} ${time}` : addDays(day, shift));
    }
    if (task.id !== undefined) line = setField(line, 'id', newTaskId());
    line = setField(line, 'created', undefined);
    return succeed(line);
  }

  search(filter: TaskFilter = {}): Task[] {
    const status = filter.status ?? 'open';
    const text = filter.text?.toLowerCase();
    const tag = filter.tag?.replace(/^#/, '').toLowerCase();
    const list = filter.list?.toLowerCase();
    const tasks = this.files.all().filter((task) => {
      if (status === 'open' && !task.open) return false;
      if (status === 'done' && task.open) return false;
      if (filter.dueBefore !== undefined && (task.due === undefined || task.due > filter.dueBefore)) return false;
      if (filter.dueAfter !== undefined && (task.due === undefined || task.due < filter.dueAfter)) return false;
      if (list !== undefined && task.list.toLowerCase() !== list && task.path.toLowerCase() !== list) return false;
      if (tag !== undefined && !task.tags.some((entry) => entry.toLowerCase() === tag || entry.toLowerCase().startsWith(`${tag}/`))) return false;
      if (text !== undefined && !task.description.toLowerCase().includes(text)) return false;
      return true;
    });
    tasks.sort(compareTasks);
    return tasks.slice(0, filter.limit ?? 50);
  }

  /**
   * Recurring tasks ticked by hand in an editor that does not know the recurrence (no ✅ date was added) get
   * their next occurrence, unless one is already there (Obsidian Tasks makes its own). Only tasks seen open
   * before (`wasOpen`: `path NUL ref`) count, so old ticked lines found in a file are never followed up.
   */
  async followHandTicks(wasOpen: ReadonlySet<string>): Promise<Task[]> {
    const added: Task[] = [];
    if (wasOpen.size === 0) return added;
    for (const path of this.files.paths()) {
      const file = this.files.read(path);
      if (!file) continue;
      for (const task of file.tasks) {
        if (!task.done || task.recurrence === undefined || task.doneDate !== undefined || !wasOpen.has(`${path}\u0000${task.ref}`)) continue;
        if (hasSuccessor(task, file.tasks)) continue;
        const line = this.nextLine(task, this.today());
        if (!line?.success) continue;
        const result = await this.files.change(path, (current) => {
          const again = current.tasks.find((entry) => entry.ref === task.ref && entry.done && entry.doneDate === undefined);
          if (!again || hasSuccessor(again, current.tasks)) return failure('already followed');
          return insertAbove(current, again, line.value);
        });
        if (result.success) added.push(...result.value.touched);
      }
    }
    if (added.length > 0) this.onChange(added, {});
    return added;
  }

  /** `path NUL ref` of the open recurring tasks: what `followHandTicks` compares with next time. */
  openRecurring(): Set<string> {
    return new Set(this.files.all().filter((task) => task.open && task.recurrence !== undefined).map((task) => `${task.path}\u0000${task.ref}`));
  }

  /** The task in the file as it is now (found again by ref after a concurrent edit). */
  private locate(file: TaskFile, ref: string, before: Task): Result<Task> {
    const task = file.tasks.find((entry) => entry.ref === ref) ?? file.tasks.find((entry) => entry.line === before.line && entry.raw === before.raw);
    return task ? succeed(task) : failure(`The task "${before.description}" is no longer in ${file.path} (edited or removed by hand?); search again.`);
  }

  private checkDates(input: Partial<Record<'due' | 'scheduled' | 'start', string | null | undefined>> & { description: string }): Result<true> {
    for (const kind of ['due', 'scheduled', 'start'] as const) {
      const value = input[kind];
      if (value !== undefined && value !== null && !isDay(value)) return failure(`${kind} must be a date YYYY-MM-DD (got "${value}").`);
    }
    return succeed(true);
  }

  /** `YYYY-MM-DD HH:mm`; `HH:mm` alone means on the due day; a day alone means 09:00 that day; else a time in words. */
  private reminderValue(value: string | undefined, due: string | undefined): Result<string | undefined> {
    if (value === undefined || value.trim() === '') return succeed(undefined);
    const text = value.trim().replace(/^⏰\s*/u, '').replace('T', ' ');
    const [first = '', second] = text.split(/\s+/);
    if (isTime(first) && second === undefined) {
      if (due === undefined) return failure('A reminder time alone needs a due date; give the reminder as "YYYY-MM-DD HH:mm".');
      return succeed(`${due} ${first.padStart(5, '0')}`);
    }
    if (isDay(first) && (second === undefined || isTime(second.slice(0, 5)))) return succeed(`${first} ${second === undefined ? '09:00' : second.slice(0, 5).padStart(5, '0')}`);
    // Words ("tomorrow at 3pm", "in 20 minutes", "next friday 9:00"), read by the one parser `schedule` uses.
    const now = this.now();
    const said = parseWhenText(value.trim().replace(/^⏰\s*/u, ''), now, this.timeZone);
    if (said.success && said.value.schedule.type === 'once' && said.value.schedule.at > now) {
      const at = said.value.schedule.at;
      return succeed(`${dayOf(at, this.timeZone)} ${timeOf(at, this.timeZone)}`);
    }
    const why = !said.success ? '' : said.value.schedule.type === 'cron' ? ' A reminder is one time; a repeating task takes recurrence.' : ' That time is already past.';
    return failure(`reminder must be a time in words ("tomorrow at 3pm", "in 20 minutes", "next Friday 9:00"), "YYYY-MM-DD HH:mm", or "HH:mm" on the due day; got "${value}".${why}`);
  }
}

function definedOnly(patch: TaskPatch): Partial<Record<'due' | 'scheduled' | 'start', string | null>> {
  const out: Partial<Record<'due' | 'scheduled' | 'start', string | null>> = {};
  for (const kind of ['due', 'scheduled', 'start'] as const) if (patch[kind] !== undefined) out[kind] = patch[kind];
  return out;
}

function compareTasks(a: Task, b: Task): number {
  if (a.open !== b.open) return a.open ? -1 : 1;
  const dueA = a.due ?? '9999-99-99';
  const dueB = b.due ?? '9999-99-99';
  if (dueA !== dueB) return dueA < dueB ? -1 : 1;
  return (PRIORITY_ORDER[a.priority ?? 'medium'] + (a.priority ? 0 : 0.5)) - (PRIORITY_ORDER[b.priority ?? 'medium'] + (b.priority ? 0 : 0.5));
}

/** Another task of the same recurrence and description, open or with a later date, follows this one. */
function hasSuccessor(task: Task, tasks: readonly Task[]): boolean {
  const date = task.due ?? task.scheduled ?? task.start ?? '';
  return tasks.some((other) => other !== task && other.line !== task.line && other.recurrence === task.recurrence && other.description === task.description
    && (other.open || (other.due ?? other.scheduled ?? other.start ?? '') > date));
}

function newlineOf(file: TaskFile): string {
  return file.breaks.find((entry) => entry !== '') ?? '\n';
}

/** Appends a task line at the end of the file (a new file starts with a heading). */
export function appendLine(file: TaskFile, line: string, path: string): FileEdit {
  const lines = [...file.lines];
  const breaks = [...file.breaks];
  const newline = newlineOf(file);
  if (file.content === '') {
    const heading = path === TASKS_FILE ? 'Tasks' : path.split('/').pop()?.replace(/\.md$/i, '') ?? 'Tasks';
    lines.splice(0, lines.length, `# ${heading}`, '', line);
    breaks.splice(0, breaks.length, newline, newline, newline);
  } else {
    const last = lines.length - 1;
    if (breaks[last] === '') {
      if (lines[last] === '') {
        lines.pop();
        breaks.pop();
      } else breaks[last] = newline;
    }
    lines.push(line);
    breaks.push(newline);
  }
  return edited(path, lines, breaks, lines.length - 1, 'added');
}

function replaceLine(file: TaskFile, task: Task, line: string, above?: string): FileEdit {
  const lines = [...file.lines];
  const breaks = [...file.breaks];
  lines[task.line] = line;
  if (above === undefined) return edited(file.path, lines, breaks, task.line, 'changed');
  const newline = breaks[task.line] || newlineOf(file);
  lines.splice(task.line, 0, above);
  breaks.splice(task.line, 0, newline);
  // Touched: the completed task (now one line down), then its next occurrence.
  const written = parseTaskFile(file.path, lines.map((entry, index) => entry + (breaks[index] ?? '')).join(''));
  const completed = written.tasks.find((entry) => entry.line === task.line + 1);
  const next = written.tasks.find((entry) => entry.line === task.line);
  return succeed({ lines, breaks, message: 'completed', touched: [completed, next].filter((entry): entry is Task => entry !== undefined) });
}

function insertAbove(file: TaskFile, task: Task, line: string): FileEdit {
  const lines = [...file.lines];
  const breaks = [...file.breaks];
  lines.splice(task.line, 0, line);
  breaks.splice(task.line, 0, breaks[task.line] || newlineOf(file));
  return edited(file.path, lines, breaks, task.line, 'added');
}

function edited(path: string, lines: string[], breaks: string[], index: number, message: string): FileEdit {
  const written = parseTaskFile(path, lines.map((entry, at) => entry + (breaks[at] ?? '')).join(''));
  const task = written.tasks.find((entry) => entry.line === index);
  return succeed({ lines, breaks, message, touched: task ? [task] : [] });
}
