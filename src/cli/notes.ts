import { mkdirSync } from 'node:fs';
import type { CommandContext } from './context.js';
import { parseCommandArgs } from './args.js';
import { optionsOf } from './spec.js';
import { openDatabase, type Database } from '../db/database.js';
import { MemoryHistory } from '../memory/history.js';
import { MemoryStore } from '../memory/store.js';
import { People } from '../config/people.js';
import { Scheduler } from '../scheduler/scheduler.js';
import { JobStore } from '../scheduler/store.js';
import { noteHeader } from '../notes/format.js';
import { createNotesPart, type NotesPart } from '../notes/part.js';
import { parseTaskText } from '../notes/task-text.js';

const TASKS_USAGE = `usage: familiar tasks list [--all] [--done] [--list NAME] [--json]
       familiar tasks add "call the dentist tomorrow at 10am"   (dates, "every …", "remind me to …" understood)
       familiar tasks done REF                                   (REF: the id shown by list)
`;
const NOTES_USAGE = `usage: familiar notes list [--tag TAG] [--type note|goal|plan|reflection] [--json]
       familiar notes show NOTE          (title, file name or path)
       familiar notes search QUERY [--tag TAG] [--json]
`;

/**
 * Opens only what these commands use: the config, the database (memory history, reminder jobs), the memory
 * folder. A reminder added here is a scheduler job the running daemon picks up within 30 s; nothing is sent
 * from this process.
 */
async function withPart<T>(context: CommandContext, run: (part: NotesPart) => Promise<T>): Promise<T> {
  const { config } = context.loadConfig();
  const log = context.logger('quiet');
  mkdirSync(config.memory_dir, { recursive: true });
  const db: Database = openDatabase(config.data_dir);
  try {
    const memory = new MemoryStore(config.memory_dir, db);
    // In a household the terminal is the owner's: their tasks and notes, in people/<owner>/ (where the daemon's first
    // start with people: moved them).
    const people = new People(config);
    const owner = people.owner();
    if (owner) memory.useHousehold(db, owner.name);
    new MemoryHistory(memory, db, log).attach();
    const scheduler = new Scheduler({
      store: new JobStore(db), timeZone: config.timezone, log, runTimeoutMs: 60_000, catchUpWindowMs: 0,
      execute: async () => ({ status: 'failed', output: '', error: 'not run from the command line' }),
    });
    // Nothing is delivered from this process: a reminder's job is the running daemon's to send.
    const part = createNotesPart({ memory, db, log, timeZone: config.timezone, http: config.tools.http, scheduler });
    return await people.asOwner(() => run(part));
  } finally {
    db.close();
  }
}

/** `familiar tasks list|add|done`. */
export async function tasksCommand(context: CommandContext): Promise<number> {
  let parsed;
  try {
    parsed = parseCommandArgs(context.args, optionsOf('tasks'));
  } catch (error) {
    context.io.stderr.write(`familiar: ${(error as Error).message}\n${TASKS_USAGE}`);
    return 2;
  }
  const [action = 'list', ...rest] = parsed.positionals;
  const out = context.io.stdout;
  const list = typeof parsed.values.list === 'string' ? parsed.values.list : undefined;
  if (action !== 'list' && action !== 'add' && action !== 'done') {
    context.io.stderr.write(TASKS_USAGE);
    return 2;
  }
  if ((action === 'add' || action === 'done') && rest.length === 0) {
    context.io.stderr.write(`familiar: tasks ${action} needs ${action === 'add' ? 'the task text' : 'a task ref'}\n${TASKS_USAGE}`);
    return 2;
  }
  return withPart(context, async (part) => {
    const { tasks } = part.services;
    if (action === 'add') {
      const { remind: _remind, ...input } = parseTaskText(rest.join(' '), part.services.now(), part.services.timeZone);
      const created = await tasks.create({ ...input, ...(list !== undefined ? { list } : {}) });
      if (!created.success) {
        context.io.stderr.write(`familiar: not added: ${created.error}\n`);
        return 1;
      }
      out.write(`${created.value.ref}  ${created.value.raw.trim()}  (${created.value.path})\n`);
      return 0;
    }
    if (action === 'done') {
      const done = await tasks.complete(rest.join(' '));
      if (!done.success) {
        context.io.stderr.write(`familiar: ${done.error}\n`);
        return 1;
      }
      out.write(`done: ${done.value.raw.trim()}\n${done.value.next ? `next: ${done.value.next.raw.trim()}\n` : ''}`);
      return 0;
    }
    const status = parsed.values.done === true ? 'done' : parsed.values.all === true ? 'all' : 'open';
    const found = tasks.search({ status, limit: 10_000, ...(list !== undefined ? { list } : {}) });
    if (context.options.json) {
      out.write(`${JSON.stringify(found.map((task) => ({
        ref: task.ref, id: task.id ?? null, description: task.description, status: task.open ? 'open' : task.done ? 'done' : 'cancelled', due: task.due ?? null,
        scheduled: task.scheduled ?? null, recurrence: task.recurrence ?? null, priority: task.priority ?? null, reminder: task.reminder ?? null,
        list: task.list, path: task.path, line: task.line + 1,
      })), null, 2)}\n`);
      return 0;
    }
    if (found.length === 0) out.write(`No ${status === 'all' ? '' : `${status} `}tasks.\n`);
    for (const task of found) out.write(`${task.ref.padEnd(9)}  ${task.raw.trim()}${task.list === 'tasks' ? '' : `  (${task.list})`}\n`);
    return 0;
  });
}

/** `familiar notes list|show|search`. */
export async function notesCommand(context: CommandContext): Promise<number> {
  let parsed;
  try {
    parsed = parseCommandArgs(context.args, optionsOf('notes'));
  } catch (error) {
    context.io.stderr.write(`familiar: ${(error as Error).message}\n${NOTES_USAGE}`);
    return 2;
  }
  const [action = 'list', ...rest] = parsed.positionals;
  const tag = typeof parsed.values.tag === 'string' ? parsed.values.tag : undefined;
  const type = typeof parsed.values.type === 'string' ? parsed.values.type : undefined;
  if (action !== 'list' && action !== 'show' && action !== 'search') {
    context.io.stderr.write(NOTES_USAGE);
    return 2;
  }
  if (action !== 'list' && rest.length === 0) {
    context.io.stderr.write(`familiar: notes ${action} needs ${action === 'show' ? 'a note' : 'a query'}\n${NOTES_USAGE}`);
    return 2;
  }
  const out = context.io.stdout;
  return withPart(context, async (part) => {
    if (action === 'show') {
      const found = part.services.notes.find(rest.join(' '));
      if (!found.success) {
        context.io.stderr.write(`familiar: ${found.error}\n`);
        return 1;
      }
      out.write(found.value.raw.endsWith('\n') ? found.value.raw : `${found.value.raw}\n`);
      return 0;
    }
    const limit = parsed.values.limit !== undefined ? Number(parsed.values.limit) : action === 'list' ? 1000 : 20;
    const hits = part.services.index.search({
      ...(action === 'search' ? { query: rest.join(' ') } : {}),
      ...(tag !== undefined ? { tag } : {}),
      ...(type !== undefined ? { type } : {}),
      limit: Number.isInteger(limit) && limit > 0 ? limit : 20,
    });
    if (context.options.json) {
      out.write(`${JSON.stringify(hits.map(({ note, snippet }) => ({ path: note.path, title: note.title, tags: note.tags, type: note.type ?? 'note', created: note.created ?? null, updated: note.updated ?? null, source: note.source ?? null, snippet })), null, 2)}\n`);
      return 0;
    }
    if (hits.length === 0) out.write(action === 'search' ? 'No notes match.\n' : 'No notes yet.\n');
    for (const hit of hits) out.write(`${noteHeader(hit.note)}${action === 'search' ? `\n    ${hit.snippet.replace(/\s+/g, ' ')}` : ''}\n`);
    return 0;
  });
}
