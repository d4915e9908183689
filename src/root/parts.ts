import type { Config } from '../config/schema.js';
import { createHeartbeatPart } from '../heartbeat/part.js';
import type { UnseenMail } from '../heartbeat/types.js';
import type { Logger } from '../log.js';
import type { McpPart } from '../mcp/part.js';
import type { SamplingDeps } from '../mcp/sampling.js';
import { createNotesPart, type NotesPart } from '../notes/part.js';
import type { Part } from '../part.js';
import type { ToolRegistry } from '../registry/registry.js';
import { createSandboxPart, type SandboxPart } from '../sandbox/part.js';
import { createSchedulerPart, type SchedulerPart } from '../scheduler/part.js';
import { createSkillsPart } from '../skills/part.js';
import type { CalendarPart } from '../tools/calendar/part.js';
import { createImagesPart } from '../tools/images/part.js';
import { createWebPart } from '../tools/web/part.js';
import { createVoicePart } from '../voice/part.js';
import { createTriggersPart, type TriggersPart } from '../triggers/part.js';
import type { Core } from './core.js';

/** The parts that bring tools and chat commands, as their factories returned them: `{ part, ...services }` each. */
export interface Made {
  scheduler: SchedulerPart;
  sandbox: SandboxPart;
  web: Awaited<ReturnType<typeof createWebPart>>;
  images: ReturnType<typeof createImagesPart>;
  email: { part: Part | undefined; recent?: NonNullable<NotesPartMail>; unseen?: UnseenMail };
  calendar: CalendarPart | { part: undefined; calendars: undefined; alarms: undefined };
  skills: ReturnType<typeof createSkillsPart>;
  mcp: McpPart | { part: undefined; manager: undefined; prompts: undefined };
  notes: NotesPart;
  voice: Awaited<ReturnType<typeof createVoicePart>>;
  heartbeat: ReturnType<typeof createHeartbeatPart>;
  triggers: TriggersPart;
}

type NotesPartMail = Parameters<typeof createNotesPart>[0]['mail'];

/**
 * Step 3 of the root: the parts that bring tools and commands, in the order each needs the ones before it. None
 * changes another while it is made: what one asks of another (the notes' labels for memory, the job executors for
 * the scheduler) is returned, and step 5 wires it. Heavy or optional code (mail, MCP) loads only when configured.
 */
export async function makeParts(core: Core): Promise<Made> {
  const { config, db, clock, tools, turns, delivery, options } = core;
  const { log, mode } = options;
  const scheduler = createSchedulerPart({ config, db, clock, log, startTurn: turns.start, delivery, people: core.people });
  const triggers = createTriggersPart({ config, db, log, ...(options.now ? { now: () => options.now?.().getTime() ?? Date.now() } : {}) });
  const sandbox = await createSandboxPart({ config, dataDir: config.data_dir, log, probe: mode === 'daemon' });
  tools.setContext({
    config, log, secrets: options.loaded.secrets, memory: core.memory.store, scheduler: scheduler.access,
    ...(sandbox.sandbox ? { pool: sandbox.sandbox } : {}),
  });
  const web = createWebPart({ config, log, ...(options.resolve ? { resolve: options.resolve } : {}) });
  const images = createImagesPart({
    config, log, ...(options.resolve ? { resolve: options.resolve } : {}),
    budget: { check: (conversationId) => core.usage.gate({ conversationId, source: 'image' }), record: (call) => core.usage.record({ ...call, source: 'image' }) },
  });
  const email = config.tools.email
    ? (await import('../tools/email/part.js').then(({ createEmailPart }) => createEmailPart({ config, configDir: core.configDir, log, workspaces: sandbox.sandbox?.workspaces, triggers: triggers.inbox }))) ?? { part: undefined }
    : (log.info('email: no tools.email section; the email tool is off'), { part: undefined });
  // The calendar's modules (ical.js, tsdav) load only when tools.calendar is set.
  const calendar = config.tools.calendar
    ? (await import('../tools/calendar/part.js').then(({ createCalendarPart }) => createCalendarPart({ config, log, scheduler: scheduler.access, ...(options.now ? { now: () => options.now?.().getTime() ?? Date.now() } : {}) }))) ?? { part: undefined, calendars: undefined, alarms: undefined }
    : { part: undefined, calendars: undefined, alarms: undefined };
  const skills = createSkillsPart({
    config, db, clock, log, tools, llm: core.llm, sandbox: sandbox.sandbox, startTurn: turns.start, delivery, labels: core.labels,
    scheduler: scheduler.scheduler, baseDir: core.configDir, people: core.people,
  });
  const mcp = await makeMcp(config, tools, log, {
    llm: core.llm,
    checkBudget: (conversationId) => core.usage.gate({ conversationId, source: 'sampling' }),
    record: (call) => core.usage.record({ ...call, source: 'sampling' }),
  });
  const notes = makeNotes(core, scheduler, 'recent' in email ? email.recent : undefined);
  // Voice notes heard and answers spoken, for the channels (and the console): engines are only run on use.
  const voice = await createVoicePart({ config, db, log, ...(options.now ? { now: options.now } : {}) });
  const heartbeat = makeHeartbeat(core, scheduler, notes, 'unseen' in email ? email.unseen : undefined, triggers, calendar.calendars);
  return { scheduler, sandbox, web, images, email, calendar, skills, mcp, notes, voice, heartbeat, triggers };
}

/** MCP is loaded only when a server is configured (the SDK is large). */
async function makeMcp(config: Config, tools: ToolRegistry, log: Logger, sampling: SamplingDeps): Promise<Made['mcp']> {
  if (Object.keys(config.tools.mcp.servers).length === 0) return { part: undefined, manager: undefined, prompts: undefined };
  const { createMcpPart } = await import('../mcp/part.js');
  return (await createMcpPart({ config, tools, log, sampling })) ?? { part: undefined, manager: undefined, prompts: undefined };
}

/** Notes and tasks, with conversation access through the turns (a /plan talks to the assistant). */
function makeNotes(core: Core, scheduler: SchedulerPart, mail: NotesPartMail): NotesPart {
  const { config, options, turns, conversations } = core;
  const made = createNotesPart({
    memory: core.memory.store, db: core.db, log: options.log.child({ component: 'notes' }), timeZone: config.timezone, http: config.tools.http,
    ...(options.resolve ? { resolve: options.resolve } : {}),
    ...(options.now ? { now: () => options.now?.().getTime() ?? Date.now() } : {}),
    scheduler: scheduler.scheduler,
    delivery: core.delivery,
    ...(mail ? { mail } : {}),
    ...(core.llmReady ? { llm: core.llm } : {}),
    budget: {
      check: (conversationId) => core.usage.gate({ conversationId, source: 'summary' }),
      record: (call) => core.usage.record({ ...call, source: 'summary' }),
    },
    conversation: {
      converse: async ({ text, origin, conversationId }) => {
        const result = await turns.start({ text, origin, conversationId, source: origin.channel === 'cli' ? 'cli' : 'chat' });
        return { text: result.text };
      },
      lastAnswer: (conversationId) => conversations.lastAnswer(conversationId),
      remember: (conversationId, turnId, messages, labels) => conversations.append(conversationId, turnId, messages, labels),
    },
  });
  // Its watcher of the task files (due dates typed by hand) starts, and so keeps running, as the owner in a household.
  const start = made.part.start?.bind(made.part);
  return start ? { ...made, part: { ...made.part, start: () => core.people.asOwner(start) } } : made;
}

/** The heartbeat's probes read the email part's connection, the task files, the run ledger, the trigger inbox and the calendars (src/heartbeat/). */
function makeHeartbeat(core: Core, scheduler: SchedulerPart, notes: NotesPart, mail: UnseenMail | undefined, triggers: TriggersPart, calendars: CalendarPart['calendars'] | undefined): ReturnType<typeof createHeartbeatPart> {
  const { config, db, turns, delivery, events, options } = core;
  const now = options.now;
  return createHeartbeatPart({
    config, db, log: options.log, startTurn: turns.start, delivery, events, mail,
    // In a household the heartbeat is the owner's: the due tasks are the owner's.
    dueTasks: (day) => core.people.asOwner(() => notes.services.tasks.search({ status: 'open', dueBefore: day, limit: 200 })),
    failedRuns: (since) => scheduler.scheduler.store.failedSince(since),
    ...(calendars ? { soonEvents: (from: number, to: number) => calendars.soonEvents(from, to) } : {}),
    unclaimedTriggers: (since) => triggers.inbox.unclaimedSince(since),
    ...(now ? { now: () => now().getTime() } : {}),
  });
}
