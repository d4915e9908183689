import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Agent, type TurnInput, type TurnResult } from './agent/agent.js';
import { ChatQueue } from './agent/chat-queue.js';
import { ZonedClock } from './agent/clock.js';
import { ConversationStore } from './agent/conversations.js';
import { applyAgent } from './agent/profiles.js';
import { ChannelHub } from './channels/hub.js';
import type { LoadedConfig } from './config/load.js';
import type { Config } from './config/schema.js';
import { openDatabase, type Database } from './db/database.js';
import { createLlmClient, llmConfigured } from './llm/client.js';
import type { LlmClient } from './llm/types.js';
import { createLogger, type Logger } from './log.js';
import { MemoryStore } from './memory/store.js';
import { seedFolder } from './ops/seed-folders.js';
import { createMemoryTools } from './memory/tools.js';
import { ToolRegistry } from './tools/registry.js';
import { INSTALLERS } from './modules.js';
import type { ToolContext } from './tools/types.js';

/** A part of the daemon with side effects (polling, timers, connections), started and stopped by the root. */
export interface AppModule {
  name: string;
  start?(): Promise<void>;
  /** Stop taking new work (stop polling, disarm timers); in-flight turns are drained by the root afterwards. */
  stop?(): Promise<void>;
  /** Release everything (connections, containers) once in-flight turns are done or cut. */
  close?(): Promise<void>;
  /** `familiar doctor` lines for this part: each says what is wrong and how to fix it. */
  doctor?(): Promise<DoctorLine[]>;
}

export interface DoctorLine {
  status: 'ok' | 'fail' | 'skip' | 'warn';
  label: string;
  detail?: string;
  fix?: string;
}

/** A chat command (`/jobs`, `/remind …`) answered without an LLM call. */
export interface ChatCommand {
  description: string;
  /** Returns the reply text. `args` is everything after the command name. */
  run(input: { channel: string; chatId: string; userId: string; args: string; conversationId: string }): Promise<string>;
}

export interface CreateAppOptions {
  loaded: LoadedConfig;
  log?: Logger;
  /** Tests inject a client with an observable sleep; otherwise built from `llm`. */
  llm?: LlmClient;
  now?: () => Date;
}

export interface App {
  config: Config;
  loaded: LoadedConfig;
  log: Logger;
  db: Database;
  clock: ZonedClock;
  memory: MemoryStore;
  conversations: ConversationStore;
  tools: ToolRegistry;
  agent: Agent;
  queue: ChatQueue;
  context: ToolContext;
  /** Running chat channels, for replies and for delivering job and skill results. */
  channels: ChannelHub;
  /** Chat commands contributed by subsystems (`/jobs`, `/remind`, `/undo`); channels dispatch them. */
  chatCommands: Map<string, ChatCommand>;
  modules: AppModule[];
  startedAt: number;
  llmReady: boolean;
  /** True once `start()` has run every module's start (the daemon's readiness, for /readyz). */
  started: boolean;
  /** Modules whose start threw; the daemon runs without them. */
  failedModules: string[];
  /** One turn for a chat through the queue (the path channels and the terminal use). */
  converse(input: Omit<TurnInput, 'conversationId'> & { conversationId?: string }): Promise<TurnResult>;
  start(): Promise<void>;
  /** Stops modules, lets in-flight turns finish until `graceMs`, then cancels them and closes the database. */
  close(graceMs?: number): Promise<void>;
}

/**
 * The composition root: config -> log -> db -> subsystems -> tools -> (channels, started by `start`).
 * Nothing here listens, polls or arms timers; `start()` does.
 */
export async function createApp(options: CreateAppOptions): Promise<App> {
  const { loaded } = options;
  const config = loaded.config;
  const log = options.log ?? createLogger({ level: config.log.level, format: config.log.format, secrets: loaded.secrets });
  seedFolder('memory', config.memory_dir, log);
  mkdirSync(path.join(config.data_dir, 'workspaces'), { recursive: true });
  const db = openDatabase(config.data_dir);
  // A turn still "running" in the database was cut by a crash or kill.
  db.prepare("UPDATE turns SET status = 'interrupted', ended_at = ? WHERE status = 'running'").run(Date.now());

  const clock = new ZonedClock(config.timezone);
  const memory = new MemoryStore(config.memory_dir, db);
  const conversations = new ConversationStore(db);
  const llmReady = options.llm !== undefined || llmConfigured(config.llm);
  const llm = options.llm ?? createLlmClient({ config: config.llm, log: log.child({ component: 'llm' }) });
  const auditInsert = db.prepare(
    'INSERT INTO audit (call_id, conversation_id, turn_id, tool, input, output, error, success, duration_ms, decision, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const tools = new ToolRegistry({
    defaultTimeoutMs: config.tools.timeout_s * 1000,
    timeouts: config.tools.timeouts,
    outputChars: config.tools.output_chars,
    audit: (record) =>
      auditInsert.run(record.callId, record.conversationId, record.turnId, record.tool, record.input, record.output, record.error ?? null,
        record.success ? 1 : 0, record.durationMs, record.decision ?? null, Date.now()),
  });
  const context: ToolContext = { config, log, db, memory, llm, secrets: loaded.secrets };
  tools.setContext(context);
  for (const tool of createMemoryTools()) tools.register(tool);

  const agent = new Agent({ config, db, llm, tools, memory, conversations, clock, log: log.child({ component: 'agent' }), ...(options.now ? { now: options.now } : {}) });
  const queue = new ChatQueue(config.agent.max_concurrent_turns);
  const modules: AppModule[] = [];
  const inFlight = new Set<AbortController>();

  if (!llmReady) log.info('llm: no llm.api_key set for api.openai.com; turns will fail until OPENAI_API_KEY (or llm.api_key) is set');

  const app: App = {
    config, loaded, log, db, clock, memory, conversations, tools, agent, queue, context, modules,
    channels: new ChannelHub(),
    chatCommands: new Map(),
    startedAt: Date.now(),
    llmReady,
    started: false,
    failedModules: [],
    converse(input) {
      const conversationId = input.conversationId ?? conversations.resolve(input.origin.channel, input.origin.chatId);
      return queue.run(conversationId, async () => {
        const controller = new AbortController();
        inFlight.add(controller);
        // Linked by hand: AbortSignal.any retains its sources and grows memory over thousands of turns.
        const onCancel = () => controller.abort(input.signal?.reason);
        if (input.signal?.aborted) onCancel();
        else input.signal?.addEventListener('abort', onCancel, { once: true });
        try {
          // The chat's agent (routes) decides persona, model and which tools are offered and executable.
          return await agent.runTurn(applyAgent(config, { ...input, conversationId, signal: controller.signal }));
        } finally {
          inFlight.delete(controller);
          input.signal?.removeEventListener('abort', onCancel);
        }
      });
    },
    async start() {
      for (const module of modules) {
        try {
          await module.start?.();
        } catch (error) {
          // One part failing to start (a bad bot token) must not take the others down.
          log.error({ err: error, module: module.name }, `${module.name} failed to start`);
          app.failedModules.push(module.name);
        }
      }
      app.started = true;
    },
    async close(graceMs = 10_000) {
      for (const module of [...modules].reverse()) {
        try {
          await module.stop?.();
        } catch (error) {
          log.warn({ err: error, module: module.name }, `${module.name} did not stop cleanly`);
        }
      }
      const deadline = AbortSignal.timeout(graceMs);
      await queue.idle(deadline);
      for (const controller of inFlight) controller.abort(new DOMException('shutting down', 'AbortError'));
      await queue.idle(AbortSignal.timeout(2000));
      for (const module of [...modules].reverse()) {
        try {
          await module.close?.();
        } catch (error) {
          log.warn({ err: error, module: module.name }, `${module.name} did not close cleanly`);
        }
      }
      db.close();
    },
  };
  // Optional subsystems register their tools and modules; each logs one line when its section is absent.
  for (const install of INSTALLERS) await install(app);
  return app;
}
