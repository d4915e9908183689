import type { Config } from '../config/schema.js';
import { localDay } from './hours.js';
import type { DaySpend, HeartbeatStore } from './store.js';

export interface HeartbeatStatus {
  state: 'on' | 'paused' | 'stopped';
  /** Why it is paused or stopped. */
  why: string | undefined;
  lastBeat: number | undefined;
  lastChange: number | undefined;
  today: DaySpend & { day: string };
}

const DAY_MS = 86_400_000;

/**
 * Whether the heartbeat may beat, and the hand controls: status, pause, resume, the person's messages ending an idle
 * pause. Reads and writes only the heartbeat's state, so `familiar heartbeat status|pause|resume` need no daemon.
 */
export class HeartbeatControl {
  constructor(private readonly deps: { config: Pick<Config, 'timezone' | 'heartbeat'>; store: HeartbeatStore; now: () => number }) {}

  private today(now: number): string {
    return localDay(now, this.deps.config.timezone);
  }

  status(): HeartbeatStatus {
    const { store } = this.deps;
    const day = this.today(this.deps.now());
    const blocked = this.blocked(this.deps.now());
    return {
      state: blocked === undefined ? 'on' : blocked.startsWith('paused') ? 'paused' : 'stopped',
      why: blocked, lastBeat: store.getNumber('last_beat'), lastChange: store.getNumber('last_change'), today: { day, ...store.spent(day) },
    };
  }

  /** By hand (`familiar heartbeat pause`, `/heartbeat pause`): no beat until resumed. */
  pause(): void {
    this.deps.store.set('paused', 'by hand');
  }

  /** Clears a pause and every stop (by hand, the day's budget, an account failure). */
  resume(): void {
    const { store } = this.deps;
    for (const key of ['paused', 'stopped', 'stopped_day', 'stopped_day_why', 'idle']) store.set(key, undefined);
    store.set('person_at', String(this.deps.now()));
  }

  /** The person wrote (a chat turn started): the idle pause ends. */
  personSpoke(): void {
    this.deps.store.set('person_at', String(this.deps.now()));
    this.deps.store.set('idle', undefined);
  }

  /** Why no beat runs now (paused or stopped), or undefined. */
  blocked(now: number): string | undefined {
    const { store } = this.deps;
    const paused = store.get('paused');
    if (paused !== undefined) return `paused ${paused}`;
    const stopped = store.get('stopped');
    if (stopped !== undefined) return `stopped: ${stopped}`;
    if (store.get('stopped_day') === this.today(now)) return `stopped for today: ${store.get('stopped_day_why') ?? 'budget'}`;
    const idle = this.idleSince(now);
    if (idle !== undefined) return `paused: no message from you since ${new Date(idle).toISOString().slice(0, 10)}; your next message resumes it`;
    return undefined;
  }

  /** When the person last wrote, if that is longer ago than `pause_after_days` (0 = never pauses). */
  private idleSince(now: number): number | undefined {
    const days = this.deps.config.heartbeat?.pause_after_days ?? 0;
    if (days <= 0) return undefined;
    const { store } = this.deps;
    const at = store.getNumber('person_at');
    if (at === undefined) {
      store.set('person_at', String(now));
      return undefined;
    }
    return now - at >= days * DAY_MS ? at : undefined;
  }

}
