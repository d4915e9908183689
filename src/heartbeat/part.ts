import type { Config } from '../config/schema.js';
import type { Database } from '../db/database.js';
import type { Delivery } from '../delivery/types.js';
import { OWNER_CHANNELS } from '../lib/owner.js';
import type { Logger } from '../log.js';
import type { ChatCommand, DoctorLine, Part } from '../part.js';
import type { EventBus } from '../tools/events.js';
import type { StartTurn } from '../turns/types.js';
import { Heartbeat, type BeatOutcome } from './beat.js';
import { localDay } from './hours.js';
import { eventsProbe, failedJobsProbe, inboxProbe, mailProbe, tasksProbe } from './probes.js';
import type { NewItem } from './answer.js';
import { IntentStore } from './intent-store.js';
import { createIntentCommands, createIntentTools } from './intent-tools.js';
import { Intents } from './intents.js';
import { formatStatus } from './status.js';
import { HeartbeatStore } from './store.js';
import type { DueTasks, FailedRuns, Probe, SoonEvents, UnclaimedTriggers, UnseenMail } from './types.js';

export interface HeartbeatPartDeps {
  config: Config;
  db: Database;
  log: Logger;
  startTurn: StartTurn;
  delivery: Delivery;
  events: Pick<EventBus, 'on'>;
  /** Unread mail (when tools.email is set), the task files, the run ledger: what the probes read. */
  mail?: UnseenMail | undefined;
  dueTasks?: DueTasks | undefined;
  failedRuns?: FailedRuns | undefined;
  /** Calendar events starting soon (when tools.calendar is set). */
  soonEvents?: SoonEvents | undefined;
  unclaimedTriggers?: UnclaimedTriggers | undefined;
  now?: () => number;
}

/** The first beat after a start waits at least this long (the channels come up first). */
const FIRST_BEAT_MS = 60_000;

/**
 * The heartbeat part: `/heartbeat`, doctor lines, and — only when `heartbeat:` is in the config — a timer that runs a
 * beat every `heartbeat.every`. With the section absent nothing is armed: no timer, no probe, no read.
 */
export function createHeartbeatPart(deps: HeartbeatPartDeps): { heartbeat: Heartbeat; intents: Intents; part: Part } {
  const { config } = deps;
  const log = deps.log.child({ component: 'heartbeat' });
  const now = deps.now ?? Date.now;
  const probes: Probe[] = [
    ...(deps.mail ? [mailProbe(deps.mail)] : []),
    ...(deps.dueTasks ? [tasksProbe(deps.dueTasks, (at) => localDay(at, config.timezone))] : []),
    ...(deps.failedRuns ? [failedJobsProbe(deps.failedRuns)] : []),
    ...(deps.soonEvents ? [eventsProbe(deps.soonEvents, (at) => new Intl.DateTimeFormat('en-GB', { timeZone: config.timezone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(at))] : []),
    ...(deps.unclaimedTriggers ? [inboxProbe(deps.unclaimedTriggers)] : []),
  ];
  const store = new HeartbeatStore(deps.db);
  const intents = new Intents({ store: new IntentStore(deps.db), config, delivery: deps.delivery, log, now });
  // A beat's new items (a mail's sender and subject, a trigger's summary) are outside words: they only remind.
  const noticed = (items: readonly NewItem[]): void => {
    for (const item of items) void intents.check(item.text, { from: 'outside', source: item.outside ?? item.probe });
  };
  const heartbeat = new Heartbeat({ config, store, probes, startTurn: deps.startTurn, delivery: deps.delivery, log, now, noticed });
  let timer: NodeJS.Timeout | undefined;
  let stopListening: (() => void) | undefined;
  let stopMatching: (() => void) | undefined;
  let lastTick = 0;

  const arm = (minimumMs = 1000): void => {
    const settings = config.heartbeat;
    if (!settings || stopListening === undefined) return;
    const delay = Math.max(minimumMs, lastTick + settings.every * 1000 - now());
    timer = setTimeout(() => {
      lastTick = now();
      heartbeat.beat()
        .then((outcome) => logOutcome(log, outcome))
        .catch((error: unknown) => log.error({ err: error }, 'heartbeat: a beat threw'))
        .finally(() => arm());
    }, delay);
    timer.unref();
  };

  const part: Part = {
    name: 'heartbeat',
    tools: createIntentTools(intents, config.timezone),
    commands: new Map([['heartbeat', heartbeatCommand(heartbeat, deps.delivery, config)], ...createIntentCommands(intents, config.timezone)]),
    async start() {
      // The person's messages are matched against their standing intents whether or not the heartbeat beats.
      stopMatching = deps.events.on('turn:start', (event) => {
        const start = event as { source?: string; text?: string; origin?: { channel: string; chatId: string } };
        if ((start.source === 'chat' || start.source === 'cli') && typeof start.text === 'string' && start.origin) {
          void intents.check(start.text, { from: 'person', chat: `${start.origin.channel}:${start.origin.chatId}` });
        }
      }, { source: 'intents' });
      if (!config.heartbeat) {
        log.info('heartbeat: off (no heartbeat section in the config)');
        return;
      }
      // The person's messages end an idle pause (and keep it from starting).
      stopListening = deps.events.on('turn:start', (event) => {
        if ((event as { source?: string }).source === 'chat') heartbeat.personSpoke();
      }, { source: 'heartbeat' });
      lastTick = heartbeat.status().lastBeat ?? now();
      arm(FIRST_BEAT_MS);
      log.info({ every: config.heartbeat.every, probes: probes.map((probe) => probe.name) }, `heartbeat: every ${config.heartbeat.every} s; probes ${probes.map((probe) => probe.name).join(', ')}`);
    },
    async stop() {
      stopMatching?.();
      stopMatching = undefined;
      clearTimeout(timer);
      stopListening?.();
      stopListening = undefined;
    },
    async doctor() {
      return heartbeatDoctor(config, deps.delivery, probes, heartbeat);
    },
  };
  return { heartbeat, intents, part };
}

function logOutcome(log: Logger, outcome: BeatOutcome): void {
  if (outcome.kind === 'idle' || outcome.kind === 'skipped') log.debug({ outcome }, 'heartbeat: beat');
  else log.info({ outcome: { ...outcome, ...('text' in outcome ? { text: outcome.text.slice(0, 200) } : {}) } }, `heartbeat: ${outcome.kind}`);
}

/** `/heartbeat [status|pause|resume|run]`, for the owner: the terminal, the console, or the chat it reports to. */
function heartbeatCommand(heartbeat: Heartbeat, delivery: Delivery, config: Config): ChatCommand {
  return {
    description: 'the heartbeat: status, pause, resume, run',
    async run({ channel, chatId, args }) {
      const target = delivery.targetFor(undefined, config.heartbeat?.to);
      if (!OWNER_CHANNELS.has(channel) && target !== `${channel}:${chatId}`) return 'Only the owner can see or change the heartbeat (in the chat it reports to, the terminal or the console).';
      const action = args.trim().toLowerCase() || 'status';
      switch (action) {
        case 'status':
          return formatStatus(heartbeat.status(), config);
        case 'pause':
          heartbeat.pause();
          return 'Heartbeat paused until /heartbeat resume.';
        case 'resume':
          heartbeat.resume();
          return config.heartbeat ? 'Heartbeat resumed.' : 'Resumed, but the heartbeat is off: add a heartbeat: section to the config.';
        case 'run': {
          const outcome = await heartbeat.beat({ force: true });
          return describeOutcome(outcome);
        }
        default:
          return 'Usage: /heartbeat [status|pause|resume|run]';
      }
    },
  };
}

/** One line on what a beat did, for `run`. */
export function describeOutcome(outcome: BeatOutcome): string {
  switch (outcome.kind) {
    case 'idle':
      return 'Beat done: nothing new, no model call.';
    case 'skipped':
      return `No beat: ${outcome.why}.`;
    case 'nothing_to_report':
      return `Beat done: ${outcome.items} new item(s), nothing worth telling (${outcome.tokens} tokens).`;
    case 'reported':
      return `Beat done: ${outcome.items} new item(s), reported${outcome.delivered.deliveredTo !== undefined ? ` to ${outcome.delivered.deliveredTo}` : ` (${outcome.delivered.error})`} (${outcome.tokens} tokens).`;
    case 'stopped':
      return `The heartbeat stopped: ${outcome.why}.`;
    case 'failed':
      return `The beat failed: ${outcome.error}`;
  }
}

async function heartbeatDoctor(config: Config, delivery: Delivery, probes: readonly Probe[], heartbeat: Heartbeat): Promise<DoctorLine[]> {
  const settings = config.heartbeat;
  if (!settings) return [{ status: 'skip', label: 'heartbeat', detail: 'off', fix: 'add a heartbeat: section (e.g. every: 30m) to be told of new mail, due tasks and failed jobs; an idle beat costs no tokens' }];
  const lines: DoctorLine[] = [{ status: 'ok', label: 'heartbeat', detail: `every ${settings.every} s; probes ${probes.map((probe) => probe.name).join(', ')}; at most ${settings.day_tokens || 'unlimited'} tokens a day` }];
  if (delivery.targetFor(undefined, settings.to) === undefined) {
    lines.push({ status: 'warn', label: 'heartbeat.to', detail: 'nowhere to report to', fix: 'set heartbeat.to or scheduler.default_chat (e.g. telegram:123456789)' });
  }
  const status = heartbeat.status();
  if (status.state !== 'on') lines.push({ status: 'warn', label: 'heartbeat state', detail: status.why ?? status.state, fix: 'familiar heartbeat resume' });
  return lines;
}
