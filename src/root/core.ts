import path from 'node:path';
import { Agent } from '../agent/agent.js';
import { ConversationStore } from '../agent/conversations.js';
import { checkRoutes } from '../agent/profiles.js';
import { Approvals } from '../approval/approvals.js';
import { createAuditWriter } from '../audit/write.js';
import { ChannelHub } from '../channels/hub.js';
import { People } from '../config/people.js';
import type { Config } from '../config/schema.js';
import { openDatabase, type Database } from '../db/database.js';
import { createDelivery } from '../delivery/delivery.js';
import type { Delivery } from '../delivery/types.js';
import { LeakBudget } from '../gate/budget.js';
import { createGate } from '../gate/gate.js';
import { directChatWith, type OwnerReach } from '../gate/owner-ask.js';
import { formatTarget } from '../lib/target.js';
import type { Logger } from '../log.js';
import { ProvenanceLabels } from '../gate/labels.js';
import { ZonedClock } from '../lib/clock.js';
import { createLlmClient, llmConfigured } from '../llm/client.js';
import type { LlmClient } from '../llm/types.js';
import { createMemoryPart, type MemoryPart } from '../memory/part.js';
import { ToolRegistry } from '../registry/registry.js';
import { enabledBuiltins } from '../tools/builtins.js';
import { EventBus } from '../tools/events.js';
import type { ToolFilter } from '../tools/tool-filter.js';
import { ChatQueue } from '../turns/chat-queue.js';
import { createTurns, type Turns } from '../turns/turns.js';
import { createUsagePart } from '../usage/part.js';
import type { DaemonOptions } from './options.js';
import { PLATFORM_NAMES, platformSection } from '../channels/platforms.js';

/** How long a delivery waits for a configured channel that is still starting (a run due at start). */
const CHANNEL_WAIT_MS = 30_000;

/** What every part may be given: the ground (database, clock, labels, memory) and the way calls and turns go. */
export interface Core {
  options: DaemonOptions;
  config: Config;
  /** The config file's folder: relative paths in it (hub folders, mail certificates) are read from there. */
  configDir: string;
  startedAt: number;
  /** The built-in tools `tools.enabled` allows. */
  builtins: ToolFilter;
  db: Database;
  clock: ZonedClock;
  labels: ProvenanceLabels;
  memory: MemoryPart;
  llm: LlmClient;
  llmReady: boolean;
  events: EventBus;
  tools: ToolRegistry;
  conversations: ConversationStore;
  usage: ReturnType<typeof createUsagePart>;
  agent: Agent;
  turns: Turns;
  approvals: Approvals;
  hub: ChannelHub;
  delivery: Delivery;
  /** Set by `start()`: from then on a delivery waits for a configured channel that is still coming up. */
  lifecycle: { starting: boolean };
  /** Who is who in a household (`people:`); without it, one person as before. */
  people: People;
}

/**
 * Steps 1 and 2 of the root: the ground (the config's cross-checks, the database, the clock, the provenance
 * labels, memory), then the core (the model, the tools and their gate, the usage budget, the agent, the turns and
 * the one delivery path). Opens the database and creates folders; nothing listens or runs.
 */
export function makeCore(options: DaemonOptions): Core {
  const { loaded, log, mode } = options;
  const config = loaded.config;
  checkRoutes(config);
  // Which built-in tools exist (tools.enabled); an unknown name stops here with a suggestion.
  const builtins = enabledBuiltins(config);
  const db = openDatabase(config.data_dir);
  // Labels on what outlives a turn (memory files, skills) made while outside content was in play.
  const labels = new ProvenanceLabels(db);
  const people = new People(config);
  const owner = people.owner();
  const memory = createMemoryPart({
    memoryDir: config.memory_dir, db, log, labels, embeddings: config.memory.embeddings,
    household: owner ? { owner: owner.name, people: people.list().map((person) => person.name) } : undefined,
  });
  const clock = new ZonedClock(config.timezone);
  const llm = options.llm ?? createLlmClient({ config: config.llm, log: log.child({ component: 'llm' }) });
  const events = new EventBus(log.child({ component: 'events' }));
  const tools = new ToolRegistry({
    defaultTimeoutMs: config.tools.timeout_s * 1000, timeouts: config.tools.timeouts, outputChars: config.tools.output_chars,
    audit: createAuditWriter(db), events,
  });
  const conversations = new ConversationStore(db, { secrets: loaded.secrets });
  const usage = createUsagePart({ config, db, ...(options.now ? { now: options.now } : {}) });
  const agent = new Agent({
    config, db, llm, tools, memory: memory.store, conversations, clock, log: log.child({ component: 'agent' }), gates: [usage.gate],
    runner: mode === 'daemon' ? 'daemon' : `pid:${process.pid}`, ...(options.now ? { now: options.now } : {}),
  });
  const turns = createTurns({
    config, agent, conversations, people, queue: new ChatQueue(config.agent.max_concurrent_turns), events,
    riskOf: (name) => {
      const risk = tools.get(name)?.tool.risk;
      return typeof risk === 'function' ? undefined : (risk ?? 'low');
    },
  });
  const approvals = new Approvals({ config, secrets: loaded.secrets, tools, log: log.child({ component: 'approval' }) });
  // The checks between a valid call and its run (src/gate/gate.ts lists them in order).
  const budget = new LeakBudget(db, config, options.now ? () => options.now?.().getTime() ?? Date.now() : undefined);
  const hub = new ChannelHub();
  const reach = ownerReach(hub, log);
  tools.setGate(createGate({ config, secrets: loaded.secrets, approvals, tools, budget, reach }));
  const lifecycle = { starting: false };
  const delivery = createDelivery({
    outbox: hub, defaultChat: () => config.scheduler.default_chat, log: log.child({ component: 'delivery' }),
    // In a started daemon a run due at start may finish before its channel is up; a channel that is not configured,
    // or a one-shot command, will bring none.
    waitMs: (channel) => (mode === 'daemon' && lifecycle.starting && channelConfigured(config, channel) ? CHANNEL_WAIT_MS : 0),
  });
  memory.attachConsolidation({ llm, delivery, settings: config.memory, people, directChat: personChat(config, reach) });
  return {
    options, config, configDir: loaded.source === 'file' ? path.dirname(loaded.path) : process.cwd(), startedAt: Date.now(), builtins,
    db, clock, labels, memory, llm, llmReady: options.llm !== undefined || llmConfigured(config.llm), events, tools, conversations, usage,
    agent, turns, approvals, hub, delivery, lifecycle, people,
  };
}

/** The gate's way to the owner and the asking member: direct chats and lines through the running channels. */
function ownerReach(hub: ChannelHub, log: Logger): OwnerReach {
  return {
    platforms: PLATFORM_NAMES,
    directChat: (channel, userId) => hub.directChat(channel, userId).catch(() => undefined),
    tell: (origin, text) => hub.deliver({ channel: origin.channel, chatId: origin.chatId }, { text }).catch((error: unknown) => {
      log.warn({ err: error, channel: origin.channel }, 'could not tell the member where the owner was asked');
    }),
  };
}

/** A person's direct chat (`telegram:123`) on the first platform that has one, where their memory proposals go. */
function personChat(config: Config, reach: OwnerReach): (name: string) => Promise<string | undefined> {
  return async (name) => {
    const direct = await directChatWith(reach, config.people?.[name]?.ids ?? {}, reach.platforms);
    return direct ? formatTarget(direct) : undefined;
  };
}

/** Whether the config asks for a chat channel of that name (a delivery waits for one that is still starting). */
function channelConfigured(config: Config, channel: string): boolean {
  if (PLATFORM_NAMES.includes(channel)) return platformSection(config, channel) !== undefined;
  switch (channel) {
    case 'console':
    case 'push':
      return config.http.listen !== undefined && config.http.listen !== '' && config.http.console;
    default:
      return false;
  }
}
