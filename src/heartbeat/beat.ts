import type { Config } from '../config/schema.js';
import type { Delivered, Delivery } from '../delivery/types.js';
import { errorMessage } from '../errors.js';
import { formatNumber } from '../lib/numbers.js';
import type { Logger } from '../log.js';
import { createToolFilter } from '../tools/tool-filter.js';
import type { StartTurn } from '../turns/types.js';
import { BEAT_INSTRUCTIONS, beatMessage, parseBeatAnswer, type NewItem } from './answer.js';
import { localDay, parseHours, withinHours } from './hours.js';
import { HeartbeatControl, type HeartbeatStatus } from './control.js';
import type { HeartbeatStore } from './store.js';
import type { Probe } from './types.js';

export type HeartbeatSettings = NonNullable<Config['heartbeat']>;

/** What one beat did. Only `reported` and `nothing_to_report` called the model. */
export type BeatOutcome =
  | { kind: 'skipped'; why: string }
  | { kind: 'idle' }
  | { kind: 'nothing_to_report'; items: number; tokens: number }
  | { kind: 'reported'; items: number; tokens: number; text: string; delivered: Delivered }
  | { kind: 'stopped'; why: string }
  | { kind: 'failed'; error: string };

export interface HeartbeatDeps {
  /** Read at each beat, so a reload's new values apply at the next one. */
  config: Pick<Config, 'timezone'> & { heartbeat?: HeartbeatSettings | undefined };
  store: HeartbeatStore;
  probes: readonly Probe[];
  startTurn: StartTurn;
  delivery: Delivery;
  log: Logger;
  now: () => number;
  /** Hears each beat's new items before the model is asked (standing intents match them). Must not throw. */
  noticed?: (items: readonly NewItem[]) => void;
}

/** A provider's refusal that waiting cannot fix: a wrong key, no credit (llm/failure.ts words them so). */
const ACCOUNT_FAILURE = /\((?:401|402|403)\b|insufficient_quota|refused the API key|no credit/;
/** The heartbeat is offered no tools: it reads what the probes found and says whether to tell the person. */
const NO_TOOLS = createToolFilter([]);

/**
 * One heartbeat: probes first (deterministic, no model), and one unattended turn in a fresh conversation only when a
 * probe found something new. Budgets hold: past the day's or a beat's tokens it stops for the day, and on an account
 * failure (401/402/403, insufficient_quota) until resumed, each with one notice. No message from the person for
 * `pause_after_days` pauses it; their next message resumes it.
 */
export class Heartbeat {
  private running: Promise<BeatOutcome> | undefined;
  private readonly control: HeartbeatControl;

  constructor(private readonly deps: HeartbeatDeps) {
    this.control = new HeartbeatControl(deps);
  }

  private get settings(): HeartbeatSettings | undefined {
    return this.deps.config.heartbeat;
  }

  private today(now = this.deps.now()): string {
    return localDay(now, this.deps.config.timezone);
  }

  /** A beat (the timer's, or `run` with `force`: hours and the idle pause do not hold it back). One at a time. */
  beat(options: { force?: boolean } = {}): Promise<BeatOutcome> {
    if (this.running) return Promise.resolve({ kind: 'skipped', why: 'a beat is already running' });
    this.running = this.beatOnce(options.force === true).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  status(): HeartbeatStatus {
    return this.control.status();
  }

  pause(): void {
    this.control.pause();
  }

  resume(): void {
    this.control.resume();
  }

  personSpoke(): void {
    this.control.personSpoke();
  }

  private async beatOnce(force: boolean): Promise<BeatOutcome> {
    const settings = this.settings;
    if (!settings) return { kind: 'skipped', why: 'the heartbeat is off (no heartbeat section in the config)' };
    const { store, log } = this.deps;
    const now = this.deps.now();
    const blocked = this.control.blocked(now);
    if (blocked !== undefined && !(force && blocked.startsWith('paused:'))) {
      if (blocked.startsWith('paused:') && store.get('idle') === undefined) {
        store.set('idle', String(now));
        log.info('heartbeat: paused, no message from the person for heartbeat.pause_after_days');
      }
      return { kind: 'skipped', why: blocked };
    }
    if (!force) {
      const hours = this.outsideHours(settings, now);
      if (hours !== undefined) return { kind: 'skipped', why: hours };
    }
    store.set('last_beat', String(now));
    const items = await this.newItems(now);
    if (items.length === 0) return { kind: 'idle' };
    this.deps.noticed?.(items);
    const day = this.today(now);
    if (settings.day_tokens > 0 && store.spent(day).tokens >= settings.day_tokens) {
      return this.stopForDay(day, `today's heartbeat tokens reached heartbeat.day_tokens (${formatNumber(settings.day_tokens)})`);
    }
    return this.think(settings, items, now, day);
  }

  /** Why hours keep this beat back, or undefined. Quiet hours hold the beat: what it would find is found at their end. */
  private outsideHours(settings: HeartbeatSettings, now: number): string | undefined {
    const zone = this.deps.config.timezone;
    if (settings.active_hours !== undefined && !withinHours(parseHours(settings.active_hours), now, zone)) return `outside heartbeat.active_hours (${settings.active_hours})`;
    if (settings.quiet_hours !== undefined && withinHours(parseHours(settings.quiet_hours), now, zone)) return `in heartbeat.quiet_hours (${settings.quiet_hours})`;
    return undefined;
  }

  /** Every probe's items not reported before; a probe that fails is logged and skipped this beat. */
  private async newItems(now: number): Promise<NewItem[]> {
    const out: NewItem[] = [];
    for (const probe of this.deps.probes) {
      try {
        const found = await probe.check(now);
        for (const item of this.deps.store.unseen(probe.name, found)) out.push({ ...item, probe: probe.name });
      } catch (error) {
        this.deps.log.warn({ err: error, probe: probe.name }, `heartbeat: the ${probe.name} probe failed: ${errorMessage(error)}`);
      }
    }
    return out;
  }

  /** The one model call of a beat with a change, its answer delivered unless it is `nothing_to_report`. */
  private async think(settings: HeartbeatSettings, items: NewItem[], now: number, day: string): Promise<BeatOutcome> {
    const { store, log } = this.deps;
    const taint = [...new Set(items.flatMap((item) => (item.outside !== undefined ? [item.outside] : [])))];
    const result = await this.deps.startTurn({
      conversationId: `heartbeat-${now.toString(36)}`, text: beatMessage(items), origin: { channel: 'scheduler', chatId: 'heartbeat' },
      source: 'heartbeat', filter: NO_TOOLS, systemExtra: BEAT_INSTRUCTIONS,
      unattended: { owner: 'heartbeat', id: 'heartbeat', approve: [] },
      ...(taint.length > 0 ? { taint } : {}),
      ...(settings.model !== undefined ? { model: settings.model } : {}),
    });
    const tokens = result.usage.promptTokens + result.usage.completionTokens;
    const spent = store.addSpend(day, tokens, result.usage.llmCalls);
    if (result.status === 'llm_error' && ACCOUNT_FAILURE.test(result.error ?? '')) {
      store.set('stopped', result.error ?? 'the provider refused the account');
      await this.notice(`The heartbeat stopped: ${result.error ?? 'the LLM provider refused the account'}. Fix it, then resume with \`familiar heartbeat resume\` or /heartbeat resume.`);
      return { kind: 'stopped', why: result.error ?? 'account failure' };
    }
    if (result.status === 'blocked') return this.stopForDay(day, result.text);
    if (result.status !== 'ok') {
      log.warn({ status: result.status, error: result.error }, 'heartbeat: the beat\'s turn failed; its items are tried again next beat');
      return { kind: 'failed', error: result.error ?? result.text };
    }
    store.markSeen(items, now);
    store.set('last_change', String(now));
    const answer = parseBeatAnswer(result.text);
    const outcome: BeatOutcome = 'nothing' in answer
      ? { kind: 'nothing_to_report', items: items.length, tokens }
      : { kind: 'reported', items: items.length, tokens, text: answer.report, delivered: await this.send(answer.report, result.taint) };
    if (settings.beat_tokens > 0 && tokens > settings.beat_tokens) {
      await this.stopForDay(day, `a beat used ${formatNumber(tokens)} tokens, over heartbeat.beat_tokens (${formatNumber(settings.beat_tokens)})`);
    } else if (settings.day_tokens > 0 && spent.tokens >= settings.day_tokens) {
      await this.stopForDay(day, `today's heartbeat tokens reached heartbeat.day_tokens (${formatNumber(settings.day_tokens)})`);
    }
    return outcome;
  }

  /** Stops until the next local day, with one notice (a second stop the same day says nothing). */
  private async stopForDay(day: string, why: string): Promise<BeatOutcome> {
    const { store } = this.deps;
    if (store.get('stopped_day') !== day) {
      store.set('stopped_day', day);
      store.set('stopped_day_why', why);
      await this.notice(`The heartbeat stopped for today: ${why}. It starts again tomorrow (or now with /heartbeat resume).`);
    }
    return { kind: 'stopped', why };
  }

  private notice(text: string): Promise<Delivered> {
    this.deps.log.warn(`heartbeat: ${text}`);
    return this.send(text, []);
  }

  private send(text: string, outside: readonly string[]): Promise<Delivered> {
    const { delivery } = this.deps;
    return delivery.deliver(delivery.targetFor(undefined, this.settings?.to), { text }, { kind: 'heartbeat', id: 'heartbeat', outside });
  }
}
