// Where the schedule differed from what was meant (issue 31): cron steps beyond a field's range, durations in days,
// weeks and months, and the hour repeated when clocks go back.
import { describe, expect, it } from 'vitest';
import { nextOccurrence, latestOccurrence, validateCron } from '../../src/time/timing.js';
import { parseWhen } from '../../src/time/when.js';
import { oracleRuns } from '../helpers/cron-oracle.js';

const PARIS = 'Europe/Paris';

function runs(cron: string, zone: string, from: number, to: number): string[] {
  const out: string[] = [];
  for (let at = nextOccurrence(cron, from, zone); at !== undefined && at <= to; at = nextOccurrence(cron, at, zone)) out.push(new Date(at).toISOString());
  return out;
}

describe('cron steps', () => {
  it('refuses a step larger than its field\'s range, saying which field and why', () => {
    const result = validateCron('*/90 * * * * *', PARIS);
    expect(result.success).toBe(false);
    if (!result.success) expect(result.error).toMatch(/step 90 in the seconds field .*0-59/);
  });

  it('refuses it in every field with that field\'s own range', () => {
    expect(validateCron('*/61 * * * *', PARIS).success).toBe(false);
    expect(validateCron('0 */25 * * *', PARIS).success).toBe(false);
    expect(validateCron('0 0 */32 * *', PARIS).success).toBe(false);
    expect(validateCron('0 0 1 */13 *', PARIS).success).toBe(false);
    expect(validateCron('0 0 * * */8', PARIS).success).toBe(false);
  });

  it('keeps steps within the range, up to its size', () => {
    for (const cron of ['*/30 * * * * *', '*/60 * * * * *', '*/45 * * * *', '0 */24 * * *', '0 0 */31 * *', '0 0 1 */12 *', '0 0 * * */7', '5-50/15 * * * *']) {
      expect(validateCron(cron, PARIS).success, cron).toBe(true);
    }
  });
});

describe('a day named without a time', () => {
  it('is 09:00:00, whatever the seconds of the moment it was said', () => {
    const parsed = parseWhen('tomorrow', Date.parse('2026-06-01T10:17:27.500Z'), PARIS);
    expect(parsed?.type === 'once' ? new Date(parsed.at).toISOString() : parsed).toBe('2026-06-02T07:00:00.000Z');
  });
});

describe('durations in days, weeks and months', () => {
  const now = Date.parse('2026-06-01T10:17:00Z');
  it.each([
    ['in 2 days', '2026-06-03T10:17:00.000Z'],
    ['in 2 weeks', '2026-06-15T10:17:00.000Z'],
    ['in 1 month', '2026-07-01T10:17:00.000Z'],
  ])('schedules "%s" exactly then, not at 09:00', (text, expected) => {
    const parsed = parseWhen(text, now, PARIS);
    expect(parsed?.type === 'once' ? new Date(parsed.at).toISOString() : parsed).toBe(expected);
  });

  it('keeps the wall-clock time across a DST change ("in 1 day" on the fall-back day)', () => {
    const parsed = parseWhen('in 1 day', Date.parse('2026-10-24T12:00:00Z'), PARIS);
    expect(parsed?.type === 'once' ? new Date(parsed.at).toISOString() : parsed).toBe('2026-10-25T13:00:00.000Z');
  });
});

describe('the hour repeated when clocks go back (Paris, 31 October 2027, 03:00 -> 02:00)', () => {
  const from = Date.parse('2027-10-30T22:00:00Z');
  const to = Date.parse('2027-10-31T03:00:00Z');

  it('runs a job with a wildcard hour in both passes, as Vixie cron and croniter do', () => {
    expect(runs('0 * * * *', PARIS, from, to)).toEqual([
      '2027-10-30T23:00:00.000Z', '2027-10-31T00:00:00.000Z', '2027-10-31T01:00:00.000Z', '2027-10-31T02:00:00.000Z', '2027-10-31T03:00:00.000Z',
    ]);
  });

  it('runs a stepped-minute job through the repeated hour without a 75-minute gap', () => {
    const seen = runs('*/15 * * * *', PARIS, Date.parse('2027-10-31T00:00:00Z'), Date.parse('2027-10-31T02:00:00Z')).map(Date.parse);
    expect(seen).toHaveLength(8);
    expect(seen.slice(1).map((at, index) => at - (seen[index] ?? 0))).toEqual(Array.from({ length: 7 }, () => 15 * 60_000));
  });

  it('runs a job at a fixed hour once, in the first pass', () => {
    expect(runs('30 2 * * *', PARIS, from, to)).toEqual(['2027-10-31T00:30:00.000Z']);
  });

  it('finds the latest run in the second pass', () => {
    expect(new Date(latestOccurrence('0 * * * *', Date.parse('2027-10-31T01:10:00Z'), PARIS) ?? 0).toISOString()).toBe('2027-10-31T01:00:00.000Z');
  });

  it('agrees with the oracle on both rules', () => {
    for (const cron of ['0 * * * *', '*/15 * * * *', '30 2 * * *', '0 1-3 * * *', '0 */2 * * *', '10 0-4/1 * * *']) {
      expect(runs(cron, PARIS, from, to), cron).toEqual(oracleRuns(cron, PARIS, from, to).map((at) => new Date(at).toISOString()));
    }
  });
});
