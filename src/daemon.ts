/**
 * The composition root: the one place that knows every part. It wires them top to bottom —
 * config → log → db → memory → llm → registry → turns → approvals → scheduler → sandbox → skills → mcp → voice → channels —
 * handing each factory exactly what it uses and keeping what it returns. Making the daemon has no side effects
 * beyond opening the database and creating folders: nothing listens, polls, arms a timer, asks Docker or changes
 * a row until `start()`, so a one-shot command (`familiar ask`, `jobs add`, `tools list`) can build what it needs
 * beside a running daemon without disturbing it.
 */
import path from 'node:path';
import { Agent } from './agent/agent.js';
import { ChatQueue } from './turns/chat-queue.js';
import { ConversationStore } from './agent/conversations.js';
import { markInterruptedTurns } from './agent/interrupted.js';
import { checkRoutes } from './agent/profiles.js';
import { Approvals } from './approval/approvals.js';
import { createAuditWriter } from './audit/write.js';
import { createCustomToolsPart, type CustomTools } from './custom-tools/part.js';
import type { ChannelRouter } from './channels/router.js';
import { ChannelHub } from './channels/hub.js';
import type { LoadedConfig } from './config/load.js';
import type { Config } from './config/schema.js';
import { openDatabase, type Database } from './db/database.js';
import { ZonedClock } from './lib/clock.js';
import type { LogRing } from './lib/log-ring.js';
import { createLlmClient, llmConfigured } from './llm/client.js';
import type { LlmClient } from './llm/types.js';
import type { Logger } from './log.js';
import { layeredMap } from './lib/layered-map.js';
import type { McpManager } from './mcp/manager.js';
import type { McpPart } from './mcp/part.js';
import type { SamplingDeps } from './mcp/sampling.js';
import { createMemoryPart } from './memory/part.js';
import { createNotesPart } from './notes/part.js';
import type { MemoryHistory } from './memory/history.js';
import type { MemoryStore } from './memory/store.js';
import type { ChatCommand, ChatCommands, Part } from './part.js';
import type { Sandbox } from './sandbox/part.js';
import { createSandboxPart } from './sandbox/part.js';
import { checkSchedulerConfig, createSchedulerPart } from './scheduler/part.js';
import { createConfigReload, type ReloadOutcome } from './ops/reload.js';
import type { Scheduler } from './scheduler/scheduler.js';
import { createSkillsPart } from './skills/part.js';
import type { SkillService } from './skills/service.js';
import { enabledBuiltins } from './tools/builtins.js';
import { EventBus } from './tools/events.js';
import type { Resolver } from './net/fetch-guarded.js';
import { ToolRegistry } from './registry/registry.js';
import { toolGroup } from './tools/names.js';
import { LeakBudget } from './gate/budget.js';
import { createGate } from './gate/gate.js';
import { ProvenanceLabels } from './gate/labels.js';
import { createWebPart } from './tools/web/part.js';
import { createDelivery } from './delivery/delivery.js';
import type { Delivery } from './delivery/types.js';
import { createTurns, type Turns } from './turns/turns.js';
import { createUsagePart } from './usage/part.js';
import { createVoicePart } from './voice/part.js';
import type { VoiceService } from './voice/types.js';

/** `daemon`: `familiar start` (channels, the HTTP endpoint, the sandbox probed). `command`: a one-shot command. */
export type DaemonMode = 'daemon' | 'command';

export interface DaemonOptions {
  loaded: LoadedConfig;
  log: Logger;
  mode: DaemonMode;
  /** Tests inject a client with an observable sleep; otherwise built from `llm`. */
  llm?: LlmClient;
  now?: () => Date;
  /** Tests steer the HTTP tool's name resolution (the SSRF guard). */
  resolve?: Resolver;
  /** More parts, started after the others (an embedder's own, or a test's). */
  parts?: readonly Part[];
  /**
   * Reads the config again as the command line first did (`familiar start`): with it, the daemon reloads on SIGHUP
   * (`reload`) and when config.yaml or `.env` changes.
   */
  load?: () => LoadedConfig;
  /** The logger's in-memory ring of recent lines (`familiar start` makes one): the console's live log. */
  logRing?: LogRing;
}

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
  approvals: Approvals;
  scheduler: Scheduler;
  skills: SkillService;
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
  /** Parts whose start threw; the daemon runs without them. */
  failedParts(): string[];
  llmReady: boolean;
  startedAt: number;
  /** Starts the parts in order; one that fails is logged and the others run. */
  start(): Promise<void>;
  /** Stops the parts, lets in-flight chat turns finish until `graceMs`, cancels the rest, closes everything. */
  close(graceMs?: number): Promise<void>;
  /** Asks every part to pick up what changed on disk (the custom tools); for SIGHUP. Never throws. */
  reloadParts(): Promise<void>;
  /** Reads the config again and applies what can change live (daemon mode with `load`; else a no-op). */
  reload(reason: string): ReloadOutcome;
}

const CHANNEL_WAIT_MS = 30_000;

export async function createDaemon(options: DaemonOptions): Promise<Daemon> {
  const { loaded, log, mode } = options;
  const config = loaded.config;
  const configDir = loaded.source === 'file' ? path.dirname(loaded.path) : process.cwd();
  const startedAt = Date.now();
  checkRoutes(config);
  // Which built-in tools exist (tools.enabled); an unknown name stops here with a suggestion.
  const builtins = enabledBuiltins(config);

  const db = openDatabase(config.data_dir);
  const clock = new ZonedClock(config.timezone);
  // Labels on what outlives a turn (memory files, skills) made while outside content was in play.
  const labels = new ProvenanceLabels(db);
  const memory = createMemoryPart({ memoryDir: config.memory_dir, db, log, labels });

  const llmReady = options.llm !== undefined || llmConfigured(config.llm);
  const llm = options.llm ?? createLlmClient({ config: config.llm, log: log.child({ component: 'llm' }) });

  const events = new EventBus(log.child({ component: 'events' }));
  const tools = new ToolRegistry({
    defaultTimeoutMs: config.tools.timeout_s * 1000,
    timeouts: config.tools.timeouts,
    outputChars: config.tools.output_chars,
    audit: createAuditWriter(db),
    events,
  });

  const conversations = new ConversationStore(db, { secrets: loaded.secrets });
  const usage = createUsagePart({ config, db, ...(options.now ? { now: options.now } : {}) });
  const agent = new Agent({
    config, db, llm, tools, memory: memory.store, conversations, clock, log: log.child({ component: 'agent' }), gates: [usage.gate],
    runner: mode === 'daemon' ? 'daemon' : `pid:${process.pid}`,
    ...(options.now ? { now: options.now } : {}),
  });
  const turns = createTurns({
    config, agent, conversations, queue: new ChatQueue(config.agent.max_concurrent_turns), events,
    riskOf: (name) => {
      const risk = tools.get(name)?.tool.risk;
      return typeof risk === 'function' ? undefined : (risk ?? 'low');
    },
  });

  const approvals = new Approvals({ config, secrets: loaded.secrets, tools, log: log.child({ component: 'approval' }) });
  // The checks between a valid call and its run (src/gate/gate.ts lists them in order).
  const budget = new LeakBudget(db, config, options.now ? () => options.now?.().getTime() ?? Date.now() : undefined);
  tools.setGate(createGate({ config, secrets: loaded.secrets, approvals, tools, budget }));

  const channels = new ChannelHub();
  let starting = false;
  const delivery = createDelivery({
    outbox: channels, defaultChat: () => config.scheduler.default_chat, log: log.child({ component: 'delivery' }),
    // In a started daemon a run due at start may finish before its channel is up; a channel that is not configured,
    // or a one-shot command, will bring none.
    waitMs: (channel) => (mode === 'daemon' && starting && channelConfigured(config, channel) ? CHANNEL_WAIT_MS : 0),
  });
  const scheduler = createSchedulerPart({ config, db, clock, log, startTurn: turns.start, delivery });
  const sandbox = await createSandboxPart({ config, dataDir: config.data_dir, log, probe: mode === 'daemon' });

  tools.setContext({
    config, log, secrets: loaded.secrets, memory: memory.store, scheduler: scheduler.access,
    ...(sandbox.sandbox ? { pool: sandbox.sandbox } : {}),
  });

  const web = createWebPart({ config, log, ...(options.resolve ? { resolve: options.resolve } : {}) });
  const email = config.tools.email
    ? await import('./tools/email/part.js').then(({ createEmailPart }) => createEmailPart({ config, configDir, log, workspaces: sandbox.sandbox?.workspaces }))
    : (log.info('email: no tools.email section; the email tool is off'), undefined);
  const skills = createSkillsPart({
    config, db, clock, log, tools, llm, sandbox: sandbox.sandbox, startTurn: turns.start, delivery, labels,
    scheduler: scheduler.scheduler, baseDir: configDir,
  });
  const mcp = await createMcpPart(config, tools, log, {
    llm,
    checkBudget: (conversationId) => usage.gate({ conversationId, source: 'sampling' }),
    record: (call) => usage.record({ ...call, source: 'sampling' }),
  });
  const notes = createNotesPart({
    memory: memory.store, db, log: log.child({ component: 'notes' }), timeZone: config.timezone, http: config.tools.http,
    ...(options.resolve ? { resolve: options.resolve } : {}),
    scheduler: scheduler.scheduler,
    delivery,
    ...(email ? { mail: email.recent } : {}),
    ...(llmReady ? { llm } : {}),
    conversation: {
      converse: async ({ text, origin, conversationId }) => {
        const result = await turns.start({ text, origin, conversationId, source: origin.channel === 'cli' ? 'cli' : 'chat' });
        return { text: result.text };
      },
      lastAnswer: (conversationId) => conversations.lastAnswer(conversationId),
      remember: (conversationId, turnId, messages, labels) => conversations.append(conversationId, turnId, messages, labels),
    },
  });

  // Voice notes heard and answers spoken, for the channels (and the console): engines are only run on use.
  const voice = createVoicePart({ config, db, log, ...(options.now ? { now: options.now } : {}) });

  // Parts in start order; each one's tools and chat commands are registered before anything starts.
  const early: Part[] = [memory.part, usage.part, ...(mcp ? [mcp.part] : []), web, ...(email ? [email.part] : []), ...(sandbox.part ? [sandbox.part] : []), voice.part];
  const late: Part[] = [scheduler.part, skills.part, notes];
  // MCP prompts come and go with their servers: looked up live, after every fixed command.
  const commands = mcp ? layeredMap([collectCommands([...early, ...late]), mcp.prompts]) : collectCommands([...early, ...late]);
  for (const part of [...early, ...late]) {
    for (const tool of part.tools ?? []) if (builtins.allows({ name: tool.name, group: toolGroup(tool), aliases: tool.aliases ?? [] })) tools.register(tool);
  }
  // The person's own tools, after the built-ins (a clashing name is theirs to change); they run with full rights.
  const customTools = await createCustomToolsPart({
    config, log, registry: tools, events, sandboxReady: sandbox.sandbox !== undefined, mode,
  });

  // What only the running daemon has: the HTTP endpoint (first, so /healthz answers while slow parts start) and
  // the chat channels (after the parts whose tools and commands they offer, before the scheduler, whose catch-up
  // runs deliver to the chats).
  let router: ChannelRouter | undefined;
  let refreshAccess = (): void => undefined;
  let checkHttp: ((config: Config) => void) | undefined;
  const head: Part[] = [];
  const chats: Part[] = [];
  let started = false;
  const failed: string[] = [];
  if (mode === 'daemon') {
    const channelsPart = await import('./channels/part.js').then(({ createChannelsPart }) => createChannelsPart({
      config, db, log, hub: channels, startTurn: turns.start, conversations, commands, approvals, turns, startedAt, usageToday: usage.today,
      workspaces: sandbox.sandbox?.workspaces, voice: voice.service,
    }));
    router = channelsPart.router;
    refreshAccess = channelsPart.refreshAccess;
    chats.push(...channelsPart.parts);
    const state = {
      config, db, startedAt,
      started: () => started,
      failedParts: () => [...failed],
      partNames: () => parts.map((part) => part.name),
      // The channels of `channels:` (what `configured` lists); the console is one of the modules.
      runningChannels: () => channels.names().filter((name) => name !== 'console'),
      queue: turns,
      usageToday: usage.today,
      reload: () => configReload.status(),
    };
    const httpModule = await import('./http/part.js');
    checkHttp = (next) => {
      if (next.http.listen) httpModule.checkHttpConfig(next.http.listen, next.http.token);
    };
    const http = await httpModule.createHttpPart({ config, log, state });
    if (http) head.push(http);
    // The web console: one more chat channel (after the others), on the HTTP endpoint, only when it listens.
    if (http && router) {
      const chatRouter = router;
      const [{ collectStatus }, audit, { listTurns }, { usageByDayAndModel }] = await Promise.all([
        import('./http/status.js'), import('./audit/query.js'), import('./usage/turns.js'), import('./usage/usage.js'),
      ]);
      const consolePart = await import('./console/part.js').then(({ createConsolePart }) => createConsolePart({
        config, db, log, secrets: loaded.secrets, clock, mount: http.mount, address: http.address,
        hub: channels, inbound: (update, io) => chatRouter.handle(update, io), conversations, commands: chatRouter.commands,
        approvals, scheduler: scheduler.scheduler, skills: skills.service, tools, pairing: chatRouter.pairing,
        memory: memory.store, history: memory.history, labels, logs: options.logRing,
        records: {
          audit: (filter) => audit.listAudit(db, filter), auditedTools: () => audit.auditedTools(db), auditOutcome: audit.auditOutcome,
          turns: (filter) => listTurns(db, filter), usageToday: usage.today, usageByDayAndModel: (days, at) => usageByDayAndModel(db, config, days, at),
        },
        // Audio the person uploads is heard like a voice note: the transcript is their words (the console is theirs).
        ...(voice.service ? { transcribe: transcriberFor(voice.service) } : {}),
        health: {
          status: () => collectStatus(state),
          doctor: () => import('./ops/daemon-checks.js').then(({ daemonChecks }) => daemonChecks({ loaded, db, parts })),
        },
        ...(options.now ? { now: () => options.now?.().getTime() ?? Date.now() } : {}),
      }));
      if (consolePart) chats.push(consolePart);
    }
  }

  // Config reload (the daemon only): the live keys are written into `config`, which the parts read per use; the
  // parts that derive state from a key when they are made refresh it here (config/live.ts lists the keys).
  let logLevel = config.log.level;
  const configReload = createConfigReload({
    loaded, log,
    load: options.load ?? (() => loaded),
    check: (next) => {
      checkRoutes(next.config);
      checkSchedulerConfig(next.config);
      checkHttp?.(next.config);
    },
    applied: (keys) => {
      const changed = (prefix: string) => keys.some((key) => key === prefix || key.startsWith(`${prefix}.`));
      if (changed('channels')) refreshAccess();
      if (changed('tools.timeout_s') || changed('tools.timeouts') || changed('tools.output_chars')) {
        tools.setLimits({ defaultTimeoutMs: config.tools.timeout_s * 1000, timeouts: config.tools.timeouts, outputChars: config.tools.output_chars });
      }
      if (changed('scheduler.jobs')) scheduler.syncDeclared();
      // --log-level on the command line wins over the config's, before and after a reload.
      if (changed('log.level') && log.level === logLevel) log.level = config.log.level;
      logLevel = config.log.level;
    },
  });
  const reloads = mode === 'daemon' && options.load !== undefined;
  const parts: Part[] = [...head, ...early, ...chats, ...late, customTools.part, ...(options.parts ?? []), ...(reloads ? [configReload.part] : [])];
  for (const part of options.parts ?? []) for (const tool of part.tools ?? []) tools.register(tool);

  return {
    config, loaded, log, db, clock, memory: memory.store, history: memory.history, conversations, tools, events, customTools, agent, turns, approvals,
    scheduler: scheduler.scheduler, skills: skills.service, sandbox: sandbox.sandbox, mcp: mcp?.manager, voice: voice.service, channels, delivery, router,
    commands: router?.commands ?? commands,
    parts, llmReady, startedAt,
    failedParts: () => [...failed],
    reload: (reason) => (reloads ? configReload.reload(reason) : { status: 'unchanged' }),
    async start() {
      starting = true;
      if (mode === 'daemon') {
        const cut = markInterruptedTurns(db);
        if (cut > 0) log.warn({ turns: cut }, 'turns cut by a crash or kill were marked interrupted');
      }
      for (const part of parts) {
        try {
          await part.start?.();
        } catch (error) {
          // One part failing to start (a bad bot token) must not take the others down.
          log.error({ err: error, module: part.name }, `${part.name} failed to start`);
          failed.push(part.name);
        }
      }
      started = true;
    },
    async close(graceMs = 10_000) {
      for (const part of [...parts].reverse()) {
        try {
          await part.stop?.();
        } catch (error) {
          log.warn({ err: error, module: part.name }, `${part.name} did not stop cleanly`);
        }
      }
      await turns.drain(graceMs);
      for (const part of [...parts].reverse()) {
        try {
          await part.close?.();
        } catch (error) {
          log.warn({ err: error, module: part.name }, `${part.name} did not close cleanly`);
        }
      }
      db.close();
    },
    async reloadParts() {
      for (const part of parts) {
        try {
          await part.reload?.();
        } catch (error) {
          log.warn({ err: error, module: part.name }, `${part.name} did not reload`);
        }
      }
    },
  };
}

async function createMcpPart(config: Config, tools: ToolRegistry, log: Logger, sampling: SamplingDeps): Promise<McpPart | undefined> {
  if (Object.keys(config.tools.mcp.servers).length === 0) return undefined;
  const { createMcpPart: create } = await import('./mcp/part.js');
  return create({ config, tools, log, sampling });
}

/** Whether the config asks for a chat channel of that name (a delivery waits for one that is still starting). */
function channelConfigured(config: Config, channel: string): boolean {
  switch (channel) {
    case 'telegram':
      return config.channels.telegram !== undefined;
    case 'discord':
      return config.channels.discord !== undefined;
    case 'console':
      return config.http.listen !== undefined && config.http.listen !== '' && config.http.console;
    default:
      return false;
  }
}

/** The parts' chat commands by name; the first part to claim a name keeps it. */
function collectCommands(parts: readonly Part[]): Map<string, ChatCommand> {
  const commands = new Map<string, ChatCommand>();
  for (const part of parts) {
    for (const [name, command] of part.commands ?? []) if (!commands.has(name)) commands.set(name, command);
  }
  return commands;
}

/** The console's upload hook over the voice service: a failure is said to the model, which tells the person. */
function transcriberFor(service: VoiceService): (audio: { name: string; mimeType: string; data: Buffer }) => Promise<string | undefined> {
  return async (audio) => {
    const heard = await service.transcribe(audio);
    if (!heard.success) throw new Error(heard.error);
    return heard.value.text;
  };
}
