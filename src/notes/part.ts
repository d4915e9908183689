import type { AfterHook } from '../tools/call.js';
import { recordReplies } from './mail-reply.js';
import type { Database } from '../db/database.js';
import type { ButtonHandler, Delivery } from '../delivery/types.js';
import type { LlmClient } from '../llm/types.js';
import type { Logger } from '../log.js';
import type { MemoryStore } from '../memory/store.js';
import type { JobExecutor, JobExecutors, Scheduler } from '../scheduler/scheduler.js';
import type { Job } from '../scheduler/types.js';
import type { Resolver } from '../net/fetch-guarded.js';
import type { ToolsConfig } from '../config/schema.js';
import type { AnyTool } from '../tools/types.js';
import { createNotesCommands, type ConversationAccess } from './commands.js';
import { EmailScanner } from './email-scan.js';
import type { MailSource } from './email-source.js';
import { createEmailTasksTool } from './email-tool.js';
import { createGoalTools } from './goal-tools.js';
import { NoteFiles, NOTES_DIR, parseNote } from './note-files.js';
import { NoteIndex } from './note-index.js';
import { createNoteTools } from './note-tools.js';
import { ReminderActions } from './reminder-actions.js';
import { createReminderCommands } from './reminder-commands.js';
import { ReminderStore } from './reminder-store.js';
import { createReminderTool } from './reminder-tool.js';
import { isReminderJob, TaskReminders } from './reminders.js';
import { scrapePage } from './scrape.js';
import type { SummaryModel } from './summarize.js';
import type { NotesServices } from './services.js';
import { TaskFiles } from './task-files.js';
import { createTaskTools } from './task-tools.js';
import { TaskService } from './tasks.js';
import type { DoctorLine, Part } from '../part.js';
import type { NotesCommand } from './types.js';
import { createWebScrapeTool } from './web-tools.js';

export interface NotesPartDeps {
  /** Notes and tasks are written through it: atomic writes, history and /undo, compare-and-swap. */
  memory: MemoryStore;
  /** The note search index lives in this connection's temp schema. */
  db: Database;
  log: Logger;
  timeZone: string;
  /** `tools.http`: web_scrape keeps the http tool's address rules and limits. */
  http: ToolsConfig['http'];
  resolve?: Resolver;
  /** Task reminders (absent: tasks keep their ⏰ but nothing is sent). */
  scheduler?: Scheduler;
  /** The one way to a chat: reminders go through it (absent: they are kept in the run log, not sent). */
  delivery?: Delivery;
  /** The mailbox and the model, for `/email` (both needed). */
  mail?: MailSource;
  llm?: LlmClient;
  conversation?: ConversationAccess;
  /** web_scrape's summaries: the daily budget's check and the usage ledger's record, for `llm` (the root's usage part). */
  budget?: Pick<SummaryModel, 'check' | 'record'>;
  now?: () => number;
}

/** What the notes part asks of the memory store, wired by the root: a saved page is labelled and kept out of prompts. */
export interface NotesMemoryHooks {
  outsideLabeler: (path: string, raw: string) => string | undefined;
  promptFilter: (path: string, raw: string) => boolean;
}

export interface NotesPart {
  part: Part;
  /** What `familiar tasks|notes` use. */
  services: NotesServices;
  /** The task reminders' jobs, for the scheduler. */
  executors: JobExecutors;
  memoryHooks: NotesMemoryHooks;
  /** Presses of the Snooze and Done buttons delivered reminders carry, for the channels and the console. */
  pressButton: ButtonHandler;
  /** A `tool:after` hook: an `email` reply to a task's message is recorded on the task (./mail-link.ts). */
  recordReplies: AfterHook;
}

/**
 * Notes, tasks, goals, plans and reflections as Markdown files the person can edit by hand, web pages saved
 * as notes, and tasks found in mail. The files are the truth; everything else (the search index, reminder
 * jobs) is derived from them and follows their hand edits.
 */
export function createNotesPart(deps: NotesPartDeps): NotesPart {
  const now = deps.now ?? Date.now;
  const { memory, log, timeZone } = deps;
  const notes = new NoteFiles({ memory, timeZone, now });
  const index = new NoteIndex({ db: deps.db, memory });
  const files = new TaskFiles({ memory });
  // Reminders follow every task written (made just below: nothing is written before this function returns).
  const tasks = new TaskService({ files, timeZone, now, onChange: (changed, origin) => reminders?.follow(changed, origin.chat) });
  const store = new ReminderStore(deps.db);
  const made = deps.scheduler ? makeReminders(deps.scheduler, { ...deps, now }, tasks, store) : undefined;
  const reminders = made?.reminders;
  const actions = made?.actions;
  const scanner = deps.mail && deps.llm ? new EmailScanner({ mail: deps.mail, llm: deps.llm, timeZone, now }) : undefined;

  // A note saved from a page is outside content wherever its text goes: labelled for memory_read and
  // memory_search, and kept out of the system prompt (its parsed source is cached by the file's text).
  const sources = new Map<string, { raw: string; source: string | undefined }>();
  const sourceOf = (path: string, raw: string): string | undefined => {
    if (!path.startsWith(`${NOTES_DIR}/`) || !raw.startsWith('---')) return undefined;
    const cached = sources.get(path);
    if (cached?.raw === raw) return cached.source;
    const source = parseNote(path, raw).source;
    sources.set(path, { raw, source });
    return source;
  };
  const memoryHooks: NotesMemoryHooks = { outsideLabeler: sourceOf, promptFilter: (path, raw) => sourceOf(path, raw) === undefined };
  // Task reminders are the scheduler's jobs, run by this part (the root hands the executor to the scheduler).
  // Plain reminders (reminder_create, /remind, `familiar jobs add --remind`) are sent by this part too, with the same buttons.
  const executors: JobExecutors = reminders && actions ? [
    { owns: isReminderJob, execute: reminders.executor() },
    { owns: isPlainReminder, execute: plainReminderExecutor(actions, store) },
  ] : [];

  const services: NotesServices = {
    notes, index, tasks, reminders, scanner, timeZone, log, now,
    scrape: (url, signal) => scrapePage(url, { http: deps.http, ...(deps.resolve ? { resolve: deps.resolve } : {}), ...(signal ? { signal } : {}) }),
    // The crawler loads with the first crawl (tldts, robots-parser).
    crawl: async (url, options) => (await import('./crawl.js')).crawl(url, { ...options, http: deps.http, ...(deps.resolve ? { resolve: deps.resolve } : {}) }),
    summary: deps.llm && deps.budget ? { llm: deps.llm, ...deps.budget } : undefined,
  };
  const tools: AnyTool[] = [...createNoteTools(services), ...createTaskTools(services), ...createGoalTools(services), createWebScrapeTool(services)];
  if (scanner) tools.push(createEmailTasksTool(services, scanner));
  if (deps.scheduler) tools.push(createReminderTool(services, { scheduler: deps.scheduler, store }));
  // Hand edits are seen on the next turn: before any of this part's tools or commands runs, reminders are
  // brought in line with the files if a task file changed (a stat per file; the watch catches the rest).
  const follow = async () => {
    await reminders?.check();
  };
  const followed = tools.map((tool): AnyTool => ({ ...tool, execute: async (params: unknown, ctx) => (await follow(), tool.execute(params, ctx)) }));
  const own = [...createNotesCommands(services, deps.conversation ?? {}), ...(actions ? createReminderCommands(actions) : [])];
  const commands = new Map(own.map(([name, command]) => [name, { ...command, run: async (input: Parameters<NotesCommand['run']>[0]) => (await follow(), command.run(input)) }]));

  const part: Part = {
    name: 'notes',
    tools: followed,
    commands,
    async start() {
      reminders?.start();
    },
    async stop() {
      reminders?.stop();
    },
    async doctor() {
      const lines: DoctorLine[] = [];
      const open = tasks.search({ status: 'open', limit: 100_000 });
      lines.push({ status: 'ok', label: 'notes', detail: `${notes.paths().length} note(s) in ${NOTES_DIR}/, ${open.length} open task(s)` });
      if (!reminders) lines.push({ status: 'warn', label: 'notes: task reminders', detail: 'no scheduler here; ⏰ on tasks is not sent' });
      if (!scanner) {
        lines.push({ status: 'skip', label: 'notes: /email', detail: deps.mail ? 'no usable LLM' : 'tools.email is not configured', fix: 'configure tools.email (and llm) to find tasks in mail' });
      }
      return lines;
    },
  };
  // A press of a reminder's button: brought in line with the files first, as the tools and commands are.
  const pressButton: ButtonHandler = async (press) => (actions ? (await follow(), actions.press(press)) : undefined);
  return { part, services, executors, memoryHooks, pressButton, recordReplies: recordReplies(services) };
}

/** Task reminders and what a delivered reminder's buttons do, over the scheduler. */
function makeReminders(scheduler: Scheduler, deps: NotesPartDeps & { now: () => number }, tasks: TaskService, store: ReminderStore): { reminders: TaskReminders; actions: ReminderActions } {
  const { log, timeZone, now } = deps;
  const isTaskReminder = (jobId: string): boolean => {
    const job = scheduler.get(jobId);
    return job !== undefined && isReminderJob(job);
  };
  const actions = new ReminderActions({ store, scheduler, tasks, timeZone, log, now, delivery: deps.delivery, isTaskReminder });
  return { actions, reminders: new TaskReminders({ scheduler, tasks, locate: (file) => {
    const resolved = deps.memory.resolve(file);
    return resolved.success ? resolved.value.absolute : file;
  }, timeZone, log, now, actions }) };
}

/** A reminder job that is not a task's: its text is sent as written. */
function isPlainReminder(job: Job): boolean {
  return job.kind === 'reminder' && !isReminderJob(job);
}

function plainReminderExecutor(actions: ReminderActions, store: ReminderStore): JobExecutor {
  return (job) => actions.deliver(job, `⏰ ${job.prompt}`, { body: job.prompt, task: store.linkOf(job.id) });
}
