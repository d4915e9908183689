import { createHash, randomBytes } from 'node:crypto';
import type { MemoryStore } from '../memory/store.js';
import { errorMessage, StaleWriteError } from '../errors.js';
import { NOTES_DIR, parseNote } from './note-files.js';
import { field, parseTaskLine, type ParsedTask, type Priority } from './task-line.js';
import { failure, succeed, type Result } from '../lib/result.js';

/** The default task list, and the folder of the other lists (`tasks/shopping.md` is the list "shopping"). */
export const TASKS_FILE = 'tasks.md';
export const TASK_LISTS_DIR = 'tasks';

export interface Task {
  /** The file (relative to the memory folder) and the 0-based line. */
  path: string;
  line: number;
  list: string;
  raw: string;
  parsed: ParsedTask;
  description: string;
  status: string;
  open: boolean;
  done: boolean;
  cancelled: boolean;
  due: string | undefined;
  scheduled: string | undefined;
  start: string | undefined;
  doneDate: string | undefined;
  recurrence: string | undefined;
  priority: Priority | undefined;
  id: string | undefined;
  /** `YYYY-MM-DD HH:mm` (Obsidian Reminder's ⏰), or a day alone. */
  reminder: string | undefined;
  tags: string[];
  /** How tools name it: the 🆔 id, else `~` and a hash of the file and description (stable while those are). */
  ref: string;
}

export interface TaskFile {
  path: string;
  content: string;
  /** Lines without their breaks, and the break after each ('' for the last line without one). */
  lines: string[];
  breaks: string[];
  tasks: Task[];
}

const MAX_ATTEMPTS = 4;

/** Splits text into lines, keeping each line's own break (`\n`, `\r\n` or `\r`) so untouched lines stay byte for byte. */
export function splitLines(content: string): { lines: string[]; breaks: string[] } {
  const lines: string[] = [];
  const breaks: string[] = [];
  const pattern = /\r\n|\n|\r/g;
  let at = 0;
  for (const match of content.matchAll(pattern)) {
    lines.push(content.slice(at, match.index));
    breaks.push(match[0]);
    at = match.index + match[0].length;
  }
  if (at < content.length || lines.length === 0) {
    lines.push(content.slice(at));
    breaks.push('');
  }
  return { lines, breaks };
}

export function joinLines(lines: readonly string[], breaks: readonly string[]): string {
  return lines.map((line, index) => line + (breaks[index] ?? '')).join('');
}

export function listOf(path: string): string {
  if (path === TASKS_FILE) return 'tasks';
  if (path.startsWith(`${TASK_LISTS_DIR}/`)) return path.slice(TASK_LISTS_DIR.length + 1).replace(/\.md$/i, '');
  return path.replace(/\.md$/i, '');
}

export function newTaskId(): string {
  // Obsidian Tasks generates six lower-case letters and digits.
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(6)].map((byte) => alphabet[byte % alphabet.length]).join('');
}

function hashRef(path: string, description: string): string {
  return `~${createHash('sha256').update(`${path}\u0000${description.toLowerCase()}`).digest('hex').slice(0, 8)}`;
}

export function parseTaskFile(path: string, content: string): TaskFile {
  const { lines, breaks } = splitLines(content);
  const tasks: Task[] = [];
  let fence = false;
  lines.forEach((line, index) => {
    // Checklists inside code blocks are examples, not tasks.
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    if (fence) return;
    const parsed = parseTaskLine(line);
    if (!parsed) return;
    const status = parsed.status;
    const done = status === 'x' || status === 'X';
    const cancelled = status === '-';
    const id = field(parsed, 'id');
    tasks.push({
      path, line: index, list: listOf(path), raw: line, parsed, description: parsed.description, status,
      open: !done && !cancelled, done, cancelled,
      due: field(parsed, 'due'), scheduled: field(parsed, 'scheduled'), start: field(parsed, 'start'), doneDate: field(parsed, 'done'),
      recurrence: field(parsed, 'recurrence'), priority: field(parsed, 'priority') as Priority | undefined, id, reminder: field(parsed, 'reminder'),
      tags: [...parsed.description.matchAll(/(?:^|\s)#([\p{L}\p{N}_/-]+)/gu)].map((match) => match[1] ?? ''),
      ref: id ?? hashRef(path, parsed.description),
    });
  });
  return { path, content, lines, breaks, tasks };
}

/** What a change does to a task file: the new lines (with their breaks) and a message for the person. */
export type FileEdit = Result<{ lines: string[]; breaks: string[]; message: string; touched: Task[] }>;

/**
 * Tasks are checklist lines in `tasks.md`, in `tasks/<list>.md`, and in notes (a plan's tasks), as Obsidian
 * Tasks reads a vault. Notes saved from outside (with a `source`) are not searched for tasks: a page's
 * checkboxes are not the person's. Writes go through the MemoryStore with compare-and-swap: an edit is
 * computed from the file as read, and redone on the file as it is if a hand edit came in between.
 */
export class TaskFiles {
  private readonly memory: MemoryStore;

  constructor(options: { memory: MemoryStore }) {
    this.memory = options.memory;
  }

  /** Files that may hold tasks, in a stable order (tasks.md first). */
  paths(): string[] {
    const paths = this.memory
      .list()
      .map((file) => file.path)
      .filter((path) => /\.md$/i.test(path) && (path === TASKS_FILE || path.startsWith(`${TASK_LISTS_DIR}/`) || path.startsWith(`${NOTES_DIR}/`)));
    return paths.sort((a, b) => (a === TASKS_FILE ? -1 : b === TASKS_FILE ? 1 : 0));
  }

  read(path: string): TaskFile | undefined {
    let content: string;
    try {
      content = this.memory.read(path);
    } catch {
      return undefined;
    }
    if (path.startsWith(`${NOTES_DIR}/`)) {
      if (!content.includes('[')) return parseTaskFile(path, '');
      if (parseNote(path, content).source !== undefined) return parseTaskFile(path, '');
    }
    return parseTaskFile(path, content);
  }

  all(): Task[] {
    return this.paths().flatMap((path) => this.read(path)?.tasks ?? []);
  }

  /** A task by its ref (🆔 id or `~hash`), or by its exact description when that is unique. */
  find(reference: string, tasks: readonly Task[] = this.all()): Result<Task> {
    const wanted = reference.trim().replace(/^🆔\s*/u, '');
    const byRef = tasks.filter((task) => task.ref === wanted || task.id === wanted);
    if (byRef.length === 1 && byRef[0]) return succeed(byRef[0]);
    if (byRef.length > 1) return failure(`"${reference}" names ${byRef.length} tasks (the same id twice?): ${byRef.map((task) => `${task.path} line ${task.line + 1}`).join(', ')}; fix the ids by hand.`);
    const lower = wanted.toLowerCase();
    const byText = tasks.filter((task) => task.description.toLowerCase() === lower);
    const open = byText.filter((task) => task.open);
    const pick = open.length === 1 ? open : byText;
    if (pick.length === 1 && pick[0]) return succeed(pick[0]);
    if (pick.length > 1) return failure(`${pick.length} tasks read "${reference}"; use the ref shown by task_search: ${pick.map((task) => task.ref).join(', ')}.`);
    return failure(`No task "${reference}". Find it with task_search (refs are its 🆔 id, or ~… for tasks without one).`);
  }

  /**
   * Applies `edit` to the file as it is on disk now, and writes it if the file is still what was read.
   * A concurrent hand edit makes it read the file again and redo the edit (which finds its task by ref).
   */
  async change(path: string, edit: (file: TaskFile) => FileEdit, conversationId?: string): Promise<Result<{ message: string; touched: Task[] }>> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      let content: string | null;
      try {
        content = this.memory.read(path);
      } catch {
        content = null;
      }
      const file = parseTaskFile(path, content ?? '');
      const result = edit(file);
      if (!result.success) return result;
      const next = joinLines(result.value.lines, result.value.breaks);
      if (next === (content ?? '')) return succeed({ message: result.value.message, touched: result.value.touched });
      try {
        await this.memory.write(path, next, { expected: content, ...(conversationId !== undefined ? { conversationId } : {}) });
        const written = parseTaskFile(path, next);
        const touched = result.value.touched.map((task) => written.tasks.find((entry) => entry.ref === task.ref) ?? task);
        return succeed({ message: result.value.message, touched });
      } catch (error) {
        if (error instanceof StaleWriteError) continue;
        return failure(`${path} was not changed: ${errorMessage(error)}`);
      }
    }
    return failure(`${path} keeps changing on disk while I write it; try again in a moment.`);
  }
}
