import type { Database } from '../db/database.js';
import { instantOfWallClock, wallClockAt } from '../lib/zoned.js';
import type { Result } from '../lib/result.js';

export type Direction = 'in' | 'out';

export interface VoiceUsageToday {
  /** Seconds heard (transcribed) and spoken today, in the configured time zone. */
  heardSeconds: number;
  spokenSeconds: number;
  /** `voice.daily_minutes`; 0 = no cap. */
  capMinutes: number;
}

/**
 * Audio minutes per day (`voice.daily_minutes`), heard and spoken together, counted in SQLite so a restart or a
 * one-shot command sees the same day. `reserve` checks the cap and records the audio's length in one immediate
 * transaction — two voice notes at once cannot both slip under the cap — and the row is released if the engine
 * fails, so only audio that was turned into words or speech counts.
 */
export class VoiceUsage {
  constructor(
    private readonly db: Database,
    private readonly options: { timeZone: string; capMinutes: number; now: () => Date },
  ) {}

  today(): VoiceUsageToday {
    const from = startOfLocalDay(this.options.timeZone, this.options.now());
    const rows = this.db.prepare('SELECT direction, SUM(seconds) AS seconds FROM voice_usage WHERE at >= ? GROUP BY direction').all(from) as Array<{ direction: string; seconds: number }>;
    const of = (direction: Direction) => rows.find((row) => row.direction === direction)?.seconds ?? 0;
    return { heardSeconds: of('in'), spokenSeconds: of('out'), capMinutes: this.options.capMinutes };
  }

  /** Records `seconds` of audio about to be processed, or says why not (today's cap). */
  reserve(input: { direction: Direction; seconds: number; engine: string; conversationId?: string | undefined }): Result<number> {
    const run = this.db.transaction((): Result<number> => {
      const cap = this.options.capMinutes * 60;
      if (cap > 0) {
        const today = this.today();
        const used = today.heardSeconds + today.spokenSeconds;
        if (used + input.seconds > cap) return { success: false, error: budgetMessage(used, input.seconds, this.options.capMinutes, this.options.timeZone) };
      }
      const info = this.db
        .prepare('INSERT INTO voice_usage (at, direction, seconds, engine, conversation_id, status) VALUES (?, ?, ?, ?, ?, ?)')
        .run(this.options.now().getTime(), input.direction, input.seconds, input.engine, input.conversationId ?? null, 'reserved');
      return { success: true, value: Number(info.lastInsertRowid) };
    });
    return run.immediate();
  }

  /** The audio was processed: its real length counts. */
  commit(id: number, seconds: number): void {
    this.db.prepare("UPDATE voice_usage SET seconds = ?, status = 'done' WHERE id = ?").run(seconds, id);
  }

  /** The engine failed: the audio does not count. */
  release(id: number): void {
    this.db.prepare('DELETE FROM voice_usage WHERE id = ?').run(id);
  }

  /** Reservations left by a process that died mid-way (at start: none of them is running any more in this daemon). */
  forgetStale(olderThanMs: number): number {
    return this.db.prepare("DELETE FROM voice_usage WHERE status = 'reserved' AND at < ?").run(this.options.now().getTime() - olderThanMs).changes;
  }
}

function budgetMessage(usedSeconds: number, wantedSeconds: number, capMinutes: number, timeZone: string): string {
  const minutes = (seconds: number) => (seconds / 60).toFixed(1);
  return `today's audio budget is used up (${minutes(usedSeconds)} of ${capMinutes} min heard and spoken; this needs ${minutes(wantedSeconds)} more) — it starts again at midnight (${timeZone}), or raise voice.daily_minutes`;
}

/** Epoch ms of the local midnight that starts `date`'s day in `timeZone`. */
export function startOfLocalDay(timeZone: string, date: Date): number {
  const wall = wallClockAt(date.getTime(), timeZone);
  return instantOfWallClock({ ...wall, hour: 0, minute: 0, second: 0 }, timeZone);
}

/** "45 s", "2 min", "1.5 min": audio lengths as the chat and the errors say them. */
export function formatSeconds(seconds: number): string {
  if (seconds < 90) return `${Math.round(seconds)} s`;
  const minutes = seconds / 60;
  return `${Number.isInteger(minutes) ? minutes : minutes.toFixed(1)} min`;
}
