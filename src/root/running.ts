import type { ChannelRouter } from '../channels/router.js';
import type { Config } from '../config/schema.js';
import type { ReloadStatus } from '../config/live.js';
import type { HttpEndpoint } from '../http/part.js';
import type { DaemonState } from '../http/status.js';
import type { ChatCommands, Part } from '../part.js';
import type { VoiceService } from '../voice/types.js';
import type { ButtonHandler } from '../delivery/types.js';
import type { Core } from './core.js';
import type { Lifecycle } from './lifecycle.js';
import type { Made } from './parts.js';
import { weekView } from '../tools/calendar/week.js';
import { platformsToStart } from '../channels/platforms.js';
import { withPerson } from '../lib/person-scope.js';

/** What only a running daemon has (step 4), each part as its factory returned it. */
export interface Running {
  http: Part | undefined;
  /** Where the HTTP endpoint listens once started (the console's address, tests). */
  httpAddress: () => { host: string; port: number } | undefined;
  /** The chat platforms that run (platforms.ts), then the part that ends their open approval questions. */
  platforms: Part[];
  console: Part | undefined;
  router: ChannelRouter;
  refreshAccess: () => void;
  /** The checks a config reload makes of `http` before applying it. */
  checkHttp: (config: Config) => void;
}

/**
 * Step 4 of the root, in `familiar start` only: the chat router and the platforms (Telegram, Discord, their approval
 * buttons), the HTTP endpoint (`/healthz` answers while slow parts start) and the console on it. Platform libraries
 * and the endpoint's code load only here.
 */
export async function makeRunning(core: Core, made: Made, commands: ChatCommands, lifecycle: Lifecycle, reloadStatus: () => ReloadStatus): Promise<Running> {
  const { config, options, db, hub, turns } = core;
  const { log } = options;
  // A platform that failed to start, or is still trying to reach its server, is on the hub but not running.
  const runningChannels = (): string[] => hub.names().filter((name) => !lifecycle.failed.includes(name));
  const channels = await import('../channels/part.js');
  const { router, refreshAccess } = channels.createChatRouting({
    config, db, log, hub, startTurn: turns.start, conversations: core.conversations, commands, approvals: core.approvals, turns,
    startedAt: core.startedAt, usageToday: core.usage.today, workspaces: made.sandbox.sandbox?.workspaces, voice: made.voice.service,
    // In a household a chat command (/tasks, /undo, /memory) acts as its sender, as a turn does.
    runAs: (channel, userId, run) => (core.people.household ? withPerson(core.people.forSender(channel, userId), run) : run()),
    runningChannels,
  });
  const platforms = await channels.createPlatformParts({
    config, log, hub, router, approvals: core.approvals, press: pressAnyButton(core, made), isAllowed: (channel, userId) => router.isAllowed(channel, userId),
    ...(options.channelRetryMs !== undefined ? { retryFirstMs: options.channelRetryMs } : {}),
  });
  const state: DaemonState = {
    config, db, startedAt: core.startedAt,
    started: () => lifecycle.started,
    failedParts: () => [...lifecycle.failed],
    partNames: () => lifecycle.parts.map((part) => part.name),
    // The channels of `channels:` (what `configured` lists); the console and its push are one of the modules.
    runningChannels: () => runningChannels().filter((name) => name !== 'console' && name !== 'push'),
    configuredChannels: () => platformsToStart(config).map((entry) => entry.name),
    queue: turns,
    usageToday: core.usage.today,
    reload: reloadStatus,
  };
  const httpModule = await import('../http/part.js');
  const http = await httpModule.createHttpPart({ config, log, state });
  if ('mount' in http) http.mount(made.triggers.webhooks);
  const console = 'mount' in http ? await makeConsole(core, made, router, http, state, lifecycle) : { part: undefined };
  return {
    http: http.part, httpAddress: () => ('address' in http ? http.address() : undefined),
    platforms, console: console.part,
    router, refreshAccess,
    checkHttp: (next) => {
      if (next.http.listen) httpModule.checkHttpConfig(next.http.listen, next.http.token);
    },
  };
}

/** The web console: one more chat channel, on the HTTP endpoint, only when it listens. */
async function makeConsole(core: Core, made: Made, router: ChannelRouter, http: HttpEndpoint, state: DaemonState, lifecycle: Lifecycle): Promise<{ part: Part | undefined }> {
  const { config, db, options } = core;
  const [{ collectStatus }, audit, { listTurns }, { usageByDayAndModel, personTokensToday }, { createConsolePart }] = await Promise.all([
    import('../http/status.js'), import('../audit/query.js'), import('../usage/turns.js'), import('../usage/usage.js'), import('../console/part.js'),
  ]);
  return createConsolePart({
    config, db, log: options.log, secrets: options.loaded.secrets, clock: core.clock, mount: http.mount, address: http.address,
    hub: core.hub, inbound: (update, io) => router.handle(update, io), conversations: core.conversations, commands: router.commands,
    approvals: core.approvals, scheduler: made.scheduler.scheduler, skills: made.skills.service, tools: core.tools, pairing: router.pairing,
    ...(made.calendar.calendars ? { calendar: weekView(made.calendar.calendars, () => config.timezone, options.now ? () => options.now?.().getTime() ?? Date.now() : Date.now) } : {}),
    memory: core.memory.store, history: core.memory.history, labels: core.labels, logs: options.logRing, pressButton: pressAnyButton(core, made),
    records: {
      audit: (filter) => audit.listAudit(db, filter), auditedTools: () => audit.auditedTools(db), auditOutcome: audit.auditOutcome,
      turns: (filter) => listTurns(db, filter), usageToday: core.usage.today, usageByDayAndModel: (days, at) => usageByDayAndModel(db, config, days, at),
      personTokensToday: (person, at) => personTokensToday(db, config, person, at),
    },
    // Audio the person uploads is heard like a voice note: the transcript is their words (the console is theirs).
    ...(made.voice.service ? { transcribe: transcriberFor(made.voice.service) } : {}),
    health: {
      status: () => collectStatus(state),
      doctor: () => import('../ops/daemon-checks.js').then(({ daemonChecks }) => daemonChecks({ loaded: options.loaded, db, parts: lifecycle.parts })),
    },
    ...(options.now ? { now: () => options.now?.().getTime() ?? Date.now() } : {}),
  });
}

/** The console's upload hook over the voice service: a failure is said to the model, which tells the person. */
function transcriberFor(service: VoiceService): (audio: { name: string; mimeType: string; data: Buffer }) => Promise<string | undefined> {
  return async (audio) => {
    const heard = await service.transcribe(audio);
    if (!heard.success) throw new Error(heard.error);
    return heard.value.text;
  };
}

/** Each part answers its own buttons (undefined for another's): the reminders', then memory's proposals. */
function pressAnyButton(core: Core, made: Made): ButtonHandler {
  return async (press) => (await made.notes.pressButton(press)) ?? core.memory.pressButton(press);
}
