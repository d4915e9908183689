/**
 * The composition root: the one place that knows every part. `createDaemon` reads as its steps, each a function of
 * src/root/: (1–2) the ground and the core, (3) the parts that bring tools, (4) what only a running daemon has,
 * (5) the wiring between parts, (6) config reload, (7) the start order, one list. Each factory gets exactly what it
 * uses and returns `{ part, ...services }`. Making the daemon has no side effects beyond opening the database and
 * creating folders: nothing listens, polls, arms a timer, asks Docker or changes a row until `start()`, so a
 * one-shot command (`familiar ask`, `jobs add`, `tools list`) can build what it needs beside a running daemon
 * without disturbing it.
 */
import type { Agent } from './agent/agent.js';
import type { ConversationStore } from './agent/conversations.js';
import type { People } from './config/people.js';
import { checkRoutes } from './agent/profiles.js';
import type { Approvals } from './approval/approvals.js';
import type { ChannelHub } from './channels/hub.js';
import type { ChannelRouter } from './channels/router.js';
import type { LoadedConfig } from './config/load.js';
import type { Config } from './config/schema.js';
import type { CustomTools } from './custom-tools/part.js';
import { createCustomToolsPart } from './custom-tools/part.js';
import type { Database } from './db/database.js';
import type { Delivery } from './delivery/types.js';
import type { ZonedClock } from './lib/clock.js';
import type { Logger } from './log.js';
import type { McpManager } from './mcp/manager.js';
import type { MemoryHistory } from './memory/history.js';
import type { MemoryStore } from './memory/store.js';
import type { Heartbeat } from './heartbeat/beat.js';
import type { Intents } from './heartbeat/intents.js';
import { appliedBy, createConfigReload, type ReloadOutcome } from './ops/reload.js';
import type { ChatCommands, Part } from './part.js';
import type { ToolRegistry } from './registry/registry.js';
import { makeCore, type Core } from './root/core.js';
import { createLifecycle } from './root/lifecycle.js';
import type { DaemonOptions } from './root/options.js';
import { makeParts, type Made } from './root/parts.js';
import { makeRunning, type Running } from './root/running.js';
import { wire } from './root/wire.js';
import type { Sandbox } from './sandbox/part.js';
import { checkSchedulerConfig } from './scheduler/part.js';
import type { Scheduler } from './scheduler/scheduler.js';
import type { SkillService } from './skills/service.js';
import type { EventBus } from './tools/events.js';
import type { Turns } from './turns/turns.js';
import type { VoiceService } from './voice/types.js';

export type { DaemonMode, DaemonOptions } from './root/options.js';

/** What the root made, for the commands that drive it and for tests. Nothing here is changed after it is made. */
export interface Daemon {
  config: Config;
  loaded: LoadedConfig;
  log: Logger;
  db: Database;
  clock: ZonedClock;
  memory: MemoryStore;
  history: MemoryHistory;
  conversations: ConversationStore;
  tools: ToolRegistry;
  /** Turns, calls and tools' own events, for parts and tool modules to watch. */
  events: EventBus;
  /** The modules and script tools of `tools_dir`. */
  customTools: CustomTools;
  agent: Agent;
  /** The one way into the agent (chats, jobs, skills). */
  turns: Turns;
  /** Who is who in a household (`people:`); without it, one person. */
  people: People;
  approvals: Approvals;
  scheduler: Scheduler;
  skills: SkillService;
  /** The heartbeat (`heartbeat:`): its beats, status, pause and resume; armed by its part only when configured. */
  heartbeat: Heartbeat;
  /** Standing intents (`/when`): made by the person, matched without a model, a reminder their only action. */
  intents: Intents;
  /** Present when `tools.sandbox` is on (in the daemon: and the engine answered with the image). */
  sandbox: Sandbox | undefined;
  mcp: McpManager | undefined;
  /** Speech to text and text to speech, when voice.stt or voice.tts is set (the console transcribes uploads with it). */
  voice: VoiceService | undefined;
  /** Running chat channels, for replies and for delivering job and skill results. */
  channels: ChannelHub;
  /** The one way anything speaks to a chat later (job and skill results, reminders). */
  delivery: Delivery;
  router: ChannelRouter | undefined;
  /** Chat commands answered without an LLM call (`/jobs`, `/remind`, `/undo`, …; in the daemon also `/help` …). */
  commands: ChatCommands;
  parts: readonly Part[];
  /** Parts whose start threw and that are not running; the daemon runs without them. */
  failedParts(): string[];
  /** Of the failed parts, those that keep trying by themselves (a chat server unreachable at boot). */
  retryingParts(): string[];
  /** Where the HTTP endpoint listens once started (`http.listen`); undefined when it does not. */
  httpAddress(): { host: string; port: number } | undefined;
  llmReady: boolean;
  startedAt: number;
  /** Starts the parts in order; one that fails is logged and the others run. A `close` meanwhile ends it early. */
  start(): Promise<void>;
  /**
   * Stops the parts, lets in-flight chat turns finish until `graceMs`, cancels the rest, closes everything. Called
   * while `start` runs, it starts no more parts and waits for the one starting no longer than `graceMs`.
   */
  close(graceMs?: number): Promise<void>;
  /** Asks every part to pick up what changed on disk (the custom tools); for SIGHUP. Never throws. */
  reloadParts(): Promise<void>;
  /** Reads the config again and applies what can change live (daemon mode with `load`; else a no-op). */
  reload(reason: string): ReloadOutcome;
}

export async function createDaemon(options: DaemonOptions): Promise<Daemon> {
  // 1–2. The ground (config checks, database, clock, labels, memory) and the core (model, tools and their gate,
  // usage, agent, turns, the one delivery path).
  const core = makeCore(options);
  const lifecycle = createLifecycle(core);
  // 3. The parts that bring tools and chat commands; none changes another while it is made.
  const made = await makeParts(core);
  // 5. Wiring what they asked of each other, and registering their tools and commands before anything starts.
  const commands = wire(core, made);
  // The person's own tools, after the built-ins (a clashing name is theirs to change); they run with full rights.
  const customTools = await createCustomToolsPart({
    config: core.config, log: options.log, registry: core.tools, events: core.events, sandboxReady: made.sandbox.sandbox !== undefined, mode: options.mode,
  });
  for (const part of options.parts ?? []) for (const tool of part.tools ?? []) core.tools.register(tool);
  // 6. Config reload (`familiar start` only): live keys written into `config`, each change's hook (ops/reload.ts).
  let running: Running | undefined;
  const reload = makeReload(core, made, () => running);
  // 4. What only the running daemon has: the HTTP endpoint, the chat channels, the console.
  if (options.mode === 'daemon') running = await makeRunning(core, made, commands, lifecycle, reload.status);
  // 7. The start order, one list: the HTTP endpoint first (/healthz answers while slow parts start), the parts whose
  // tools the chats offer, the chats, then the scheduler (its catch-up runs deliver to the chats), skills and
  // notes, the heartbeat (its probes read them), the person's tools, an embedder's parts, and the config watcher.
  lifecycle.parts = [
    running?.http, core.memory.part, core.usage.part, made.mcp.part, made.web.part, made.images.part, made.email.part, made.calendar.part, made.sandbox.part, made.voice.part,
    ...(running?.platforms ?? []), running?.console,
    made.triggers.part, made.scheduler.part, made.skills.part, made.notes.part, made.heartbeat.part, customTools.part, ...(options.parts ?? []), reload.part,
  ].filter((part): part is Part => part !== undefined);
  return assemble(core, made, customTools, running, lifecycle, commands, reload.reload);
}

/** Step 6: the reload part and what each live change asks of which part (the table in ops/reload.ts). */
function makeReload(core: Core, made: Made, running: () => Running | undefined): Omit<ReturnType<typeof createConfigReload>, 'part'> & { part: Part | undefined } {
  const { config, options, tools } = core;
  const { log, loaded } = options;
  let configured = config.log.level;
  const reload = createConfigReload({
    loaded, log,
    load: options.load ?? (() => loaded),
    check: (next) => {
      checkRoutes(next.config);
      checkSchedulerConfig(next.config);
      running()?.checkHttp(next.config);
    },
    applied: appliedBy({
      refreshAccess: () => {
        core.people.refresh();
        running()?.refreshAccess();
      },
      toolLimits: () => tools.setLimits({ defaultTimeoutMs: config.tools.timeout_s * 1000, timeouts: config.tools.timeouts, outputChars: config.tools.output_chars }),
      declaredJobs: () => made.scheduler.syncDeclared(),
      jobZones: () => made.scheduler.scheduler.retime(),
      logLevel: () => {
        // --log-level on the command line wins over the config's, before and after a reload.
        if (log.level === configured) log.level = config.log.level;
        configured = config.log.level;
      },
    }),
  });
  const reloads = options.mode === 'daemon' && options.load !== undefined;
  return { ...reload, part: reloads ? reload.part : undefined, reload: (reason) => (reloads ? reload.reload(reason) : { status: 'unchanged' }) };
}

/** What the root hands back: the parts and services the commands and tests drive. */
function assemble(core: Core, made: Made, customTools: CustomTools, running: Running | undefined, lifecycle: ReturnType<typeof createLifecycle>, commands: ChatCommands, reload: (reason: string) => ReloadOutcome): Daemon {
  const { options } = core;
  return {
    config: core.config, loaded: options.loaded, log: options.log, db: core.db, clock: core.clock, memory: core.memory.store,
    history: core.memory.history, conversations: core.conversations, tools: core.tools, events: core.events, customTools, agent: core.agent,
    turns: core.turns, approvals: core.approvals, scheduler: made.scheduler.scheduler, skills: made.skills.service, heartbeat: made.heartbeat.heartbeat, intents: made.heartbeat.intents, sandbox: made.sandbox.sandbox,
    mcp: made.mcp.manager, voice: made.voice.service, channels: core.hub, delivery: core.delivery, router: running?.router,
    commands: running?.router.commands ?? commands,
    parts: lifecycle.parts, llmReady: core.llmReady, startedAt: core.startedAt, people: core.people,
    httpAddress: () => running?.httpAddress(),
    failedParts: () => [...lifecycle.failed],
    retryingParts: () => [...lifecycle.retrying],
    reload,
    start: () => lifecycle.start(),
    close: (graceMs = 10_000) => lifecycle.close(graceMs),
    reloadParts: () => lifecycle.reloadParts(),
  };
}
