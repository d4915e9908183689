import { wrapExternal } from '../tools/external.js';
import type { ToolCallContext, ToolResult } from '../tools/types.js';
import { addDays, dayToUtc, weekday } from './dates.js';
import type { Note } from './note-files.js';
import type { Task } from './task-files.js';

/** One task as the model reads it: its ref (what tools take), the line as written, and its list. */
export function taskForModel(task: Task): string {
  return `${task.ref} · ${task.raw.trim()} · list ${task.list}${task.path === 'tasks.md' || task.path.startsWith('tasks/') ? '' : ` (${task.path})`}`;
}

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

export function shortDay(day: string): string {
  const date = dayToUtc(day);
  return `${WEEKDAYS[weekday(day) - 1] ?? ''} ${date.getUTCDate()} ${MONTHS[date.getUTCMonth()] ?? ''}`;
}

/** A task for a person in a chat: description, dates and recurrence in words, its ref to act on it. */
export function taskForChat(task: Task): string {
  const parts = [task.description];
  if (task.priority === 'highest' || task.priority === 'high') parts.unshift(task.priority === 'highest' ? '🔺' : '⏫');
  if (task.due !== undefined) parts.push(`📅 ${shortDay(task.due)}`);
  if (task.recurrence !== undefined) parts.push(`🔁 ${task.recurrence}`);
  if (task.reminder !== undefined) parts.push(`⏰ ${task.reminder}`);
  if (task.list !== 'tasks') parts.push(`(${task.list})`);
  return `• ${parts.join(' ')} — ${task.ref}`;
}

/** Open tasks grouped by when they are due: overdue, today, tomorrow, this week, later, no date. */
export function tasksByDue(tasks: readonly Task[], today: string): string {
  if (tasks.length === 0) return 'No open tasks. Add one with /task <what> [when], e.g. /task call the dentist tomorrow.';
  const endOfWeek = addDays(today, 7 - weekday(today));
  const groups: Array<[string, Task[]]> = [['Overdue', []], ['Today', []], ['Tomorrow', []], ['This week', []], ['Later', []], ['No date', []]];
  const tomorrow = addDays(today, 1);
  for (const task of tasks) {
    const due = task.due ?? task.scheduled;
    const index = due === undefined ? 5 : due < today ? 0 : due === today ? 1 : due === tomorrow ? 2 : due <= endOfWeek ? 3 : 4;
    groups[index]?.[1].push(task);
  }
  const lines: string[] = [];
  for (const [label, entries] of groups) {
    if (entries.length === 0) continue;
    lines.push(`${label}:`, ...entries.map(taskForChat), '');
  }
  lines.push('Tick one with /tasks done <ref>.');
  return lines.join('\n');
}

/**
 * A note's text for the model: as it is, or — for a note whose text came from outside (`source`: saved from a page,
 * or written while the assistant read one: `MemoryAccess.outsideSource`) — wrapped as outside content, with that
 * source for the turn's taint.
 */
export function noteText(source: string | undefined, text: string, maxChars = Number.POSITIVE_INFINITY): { text: string; externalSource?: string } {
  if (source === undefined) return { text };
  // Cut before wrapping: the registry's output cap must never cut the end marker off.
  const shown = text.length > maxChars ? `${text.slice(0, Math.max(500, maxChars))}\n…[cut: the note is longer]` : text;
  return { text: wrapExternal(source, shown), externalSource: source };
}

export function noteHeader(note: Note): string {
  const facts = [`${note.path}`];
  if (note.type !== undefined && note.type !== 'note') facts.push(`type ${note.type}`);
  if (typeof note.data.status === 'string') facts.push(`status ${note.data.status}`);
  if (note.tags.length > 0) facts.push(`tags ${note.tags.join(', ')}`);
  if (note.updated !== undefined) facts.push(`updated ${note.updated}`);
  if (note.source !== undefined) facts.push(`saved from ${note.source}`);
  return `"${note.title}" (${facts.join(' · ')})`;
}

/**
 * A tool's answer quoting lines of these memory files: when one of them holds outside content (written while the
 * assistant read a page or a mail — a planted task, say), the whole answer is outside content, so the turn that
 * reads it is tainted and cannot act on what it says.
 */
export function outsideAware(ctx: Pick<ToolCallContext, 'memory'>, paths: Iterable<string>, text: string): ToolResult {
  for (const path of new Set(paths)) {
    const source = ctx.memory.outsideSource(path, '');
    if (source !== undefined) return { success: true, output: wrapExternal(source, text), externalSource: source };
  }
  return { success: true, output: text };
}
