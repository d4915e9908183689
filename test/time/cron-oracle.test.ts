import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { latestOccurrence, nextOccurrence } from '../../src/time/timing.js';
import { oracleRuns, transitions } from '../helpers/cron-oracle.js';

// cron-parser (patched: patches/cron-parser+5.10.5.patch) against an oracle that shares no code with it.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The implementation's runs in (from, to], by stepping nextOccurrence as the scheduler does. */
function implementationRuns(cron: string, timeZone: string, from: number, to: number): number[] {
  const runs: number[] = [];
  for (let at = nextOccurrence(cron, from, timeZone); at !== undefined && at <= to; at = nextOccurrence(cron, at, timeZone)) {
    runs.push(at);
    if (runs.length > 20_000) throw new Error('runaway');
  }
  return runs;
}
const iso = (instants: number[]): string[] => instants.map((instant) => new Date(instant).toISOString());

// Zones with every kind of DST: none, one hour at 02:00, at midnight (Havana, São Paulo until 2019), half an hour
// (Lord Howe), 45-minute offsets (Chatham), two hours (Troll), "negative" DST (Dublin), Ramadan pauses (Casablanca),
// abolished DST and changed offsets (Moscow 2011/2014, Tehran 2022, Caracas 2007/2016), a skipped day (Apia 2011).
const ZONES = [
  'UTC', 'Europe/Paris', 'America/New_York', 'Australia/Lord_Howe', 'Pacific/Chatham', 'Antarctica/Troll', 'Europe/Dublin',
  'Africa/Casablanca', 'America/Havana', 'America/Sao_Paulo', 'Europe/Moscow', 'Asia/Tehran', 'America/Caracas', 'Pacific/Apia',
  'America/St_Johns', 'America/Santiago', 'Asia/Kolkata', 'Australia/Adelaide',
];
const WINDOWS: Array<{ zone: string; from: number; to: number }> = [];
for (const zone of ZONES) {
  for (const transition of transitions(zone, Date.UTC(1996, 0, 1), Date.UTC(2032, 0, 1))) WINDOWS.push({ zone, from: transition - 36 * HOUR, to: transition + 36 * HOUR });
  // An ordinary stretch too, for zones without transitions and for day-of-month/day-of-week rules.
  WINDOWS.push({ zone, from: Date.UTC(2026, 4, 1), to: Date.UTC(2026, 4, 1) + 3 * DAY });
}

const minuteField = fc.constantFrom('0', '15', '30', '45', '59', '*/15', '*/20', '5-50/15', '0,30', '10-12', '*');
const hourField = fc.constantFrom('*', '0', '1', '2', '3', '23', '*/2', '*/3', '1-3', '0,2,3', '2-4/2', '22-23');
const dayField = fc.constantFrom('*', '*', '1', '15', '*/2', '*/5', '1-7', '31', '10-20/3', '?');
const monthField = fc.constantFrom('*', '*', '*/2', '3-11', 'jan-jun', '*/3', '10');
const weekdayField = fc.constantFrom('*', '*', '0', '1', '7', '1-5', '*/2', '0,6', 'mon-fri', 'sun', '?');
const cronArb = fc.tuple(minuteField, hourField, dayField, monthField, weekdayField).map((fields) => fields.join(' '));

describe('cron runs, checked against an independent oracle', () => {
  it(`matches the oracle for generated expressions around ${WINDOWS.length} DST transitions and ordinary days in ${ZONES.length} zones (1996–2031)`, () => {
    fc.assert(fc.property(cronArb, fc.constantFrom(...WINDOWS), (cron, window) => {
      const expected = iso(oracleRuns(cron, window.zone, window.from, window.to));
      // Expressions with hundreds of runs in three days cost seconds to step through; the hourly ones say as much.
      fc.pre(expected.length <= 80);
      expect(iso(implementationRuns(cron, window.zone, window.from, window.to)), `${cron} in ${window.zone}`).toEqual(expected);
    }), { numRuns: 500 });
  }, 240_000);

  it('finds the latest run at or before any instant as the oracle does', () => {
    fc.assert(fc.property(cronArb, fc.constantFrom(...WINDOWS), fc.double({ min: 0.3, max: 1, noNaN: true }), (cron, window, fraction) => {
      const at = Math.floor((window.from + (window.to - window.from) * fraction) / 1000) * 1000;
      const lookBack = at - 400 * DAY;
      const runs = oracleRuns(cron, window.zone, lookBack, at);
      const latest = latestOccurrence(cron, at, window.zone);
      const label = `${cron} in ${window.zone} at ${new Date(at).toISOString()}`;
      // A yearly expression may last have run before the oracle's 400 days: then only "earlier than that" is checked.
      if (runs.length === 0) expect(latest === undefined || latest <= lookBack, label).toBe(true);
      else expect(latest === undefined ? undefined : new Date(latest).toISOString(), label).toBe(new Date(runs.at(-1) ?? 0).toISOString());
    }), { numRuns: 300 });
  }, 120_000);

  it('treats a day field that starts with "*" as unrestricted, as Vixie cron does (no OR)', () => {
    const from = Date.UTC(2026, 2, 1);
    // Mondays that are odd days of the month, not "Mondays or odd days".
    expect(iso(implementationRuns('0 0 */2 * 1', 'UTC', from, from + 60 * DAY))).toEqual(iso(oracleRuns('0 0 */2 * 1', 'UTC', from, from + 60 * DAY)));
    expect(iso(implementationRuns('0 0 */2 * 1', 'UTC', from, from + 31 * DAY))).toEqual(['2026-03-09T00:00:00.000Z', '2026-03-23T00:00:00.000Z']);
    // Both restricted: either one (the 1st and the 15th, and every Friday).
    expect(implementationRuns('0 0 1,15 * 5', 'UTC', from, from + 31 * DAY)).toHaveLength(2 + 4);
  });

  it('runs 15 2 * * * on Lord Howe Island\'s half-hour DST day (02:15 does not exist; it runs at 02:45)', () => {
    const runs = implementationRuns('15 2 * * *', 'Australia/Lord_Howe', Date.UTC(2026, 9, 2), Date.UTC(2026, 9, 6));
    expect(iso(runs)).toEqual(['2026-10-02T15:45:00.000Z', '2026-10-03T15:45:00.000Z', '2026-10-04T15:15:00.000Z', '2026-10-05T15:15:00.000Z']);
  });

  it('treats the repeated autumn hour the same for 0 */2 * * * and 0 * * * * (a wildcard or stepped hour runs in both passes)', () => {
    const from = Date.UTC(2026, 9, 24, 21);
    const to = Date.UTC(2026, 9, 25, 4);
    expect(iso(implementationRuns('0 * * * *', 'Europe/Paris', from, to))).toEqual([
      '2026-10-24T22:00:00.000Z', '2026-10-24T23:00:00.000Z', '2026-10-25T00:00:00.000Z', '2026-10-25T01:00:00.000Z', '2026-10-25T02:00:00.000Z',
      '2026-10-25T03:00:00.000Z', '2026-10-25T04:00:00.000Z',
    ]);
    expect(iso(implementationRuns('0 */2 * * *', 'Europe/Paris', from, to))).toEqual(['2026-10-24T22:00:00.000Z', '2026-10-25T00:00:00.000Z', '2026-10-25T01:00:00.000Z', '2026-10-25T03:00:00.000Z']);
  });

  it('runs a time skipped in spring once, shifted by the jump, and every-15-minutes once per instant', () => {
    expect(iso(implementationRuns('30 2 * * *', 'Europe/Paris', Date.UTC(2026, 2, 28, 12), Date.UTC(2026, 2, 29, 12)))).toEqual(['2026-03-29T01:30:00.000Z']);
    const quarter = implementationRuns('*/15 * * * *', 'Europe/Paris', Date.UTC(2026, 2, 29, 0, 30), Date.UTC(2026, 2, 29, 1, 30));
    expect(iso(quarter)).toEqual(['2026-03-29T00:45:00.000Z', '2026-03-29T01:00:00.000Z', '2026-03-29T01:15:00.000Z', '2026-03-29T01:30:00.000Z']);
  });

  it('runs a daily job once on the day Samoa skipped (30 December 2011 did not exist in Apia)', () => {
    const runs = implementationRuns('0 12 * * *', 'Pacific/Apia', Date.UTC(2011, 11, 28), Date.UTC(2012, 0, 1));
    expect(iso(runs)).toEqual(iso(oracleRuns('0 12 * * *', 'Pacific/Apia', Date.UTC(2011, 11, 28), Date.UTC(2012, 0, 1))));
    // 12:00 on the 28th, the 29th, the 31st (the 30th's 12:00 would be the same instant) and 1 January.
    expect(iso(runs)).toEqual(['2011-12-28T22:00:00.000Z', '2011-12-29T22:00:00.000Z', '2011-12-30T22:00:00.000Z', '2011-12-31T22:00:00.000Z']);
  });
});
