import { describe, expect, it } from 'vitest';
import { latestOccurrence, nextOccurrence, parseRunAt, resolveSchedule, validateCron } from '../../src/time/timing.js';
import { parseRecurrence, parseWhen } from '../../src/time/when.js';
import { instantOfWallClock } from '../../src/lib/zoned.js';

const PARIS = 'Europe/Paris';
const at = (iso: string) => Date.parse(iso);
const once = (text: string, now: string, zone = PARIS) => {
  const parsed = parseWhen(text, at(now), zone);
  if (parsed?.type !== 'once') throw new Error(`"${text}" did not parse as a one-shot: ${JSON.stringify(parsed)}`);
  return new Date(parsed.at).toISOString();
};

describe('natural-language one-shots in the configured time zone', () => {
  it('reads "tomorrow at 9am" on the Paris clock on the spring-forward day (UTC+2 after the change)', () => {
    // Saturday 28 March 2026, 13:00 in Paris (UTC+1); clocks go forward that night.
    expect(once('tomorrow at 9am', '2026-03-28T12:00:00Z')).toBe('2026-03-29T07:00:00.000Z');
  });

  it('reads "tomorrow at 9am" on the Paris clock on the fall-back day (UTC+1 after the change)', () => {
    expect(once('tomorrow at 9am', '2026-10-24T12:00:00Z')).toBe('2026-10-25T08:00:00.000Z');
  });

  it('adds "in 2 hours" to the instant even when the clocks jump in between', () => {
    // 01:30 in Paris; at 02:00 the clocks jump to 03:00, so the wall clock will read 04:30.
    expect(once('in 2 hours', '2026-03-29T00:30:00Z')).toBe('2026-03-29T02:30:00.000Z');
  });

  it('parses "in 2 seconds" and "in 20 minutes" exactly', () => {
    expect(once('in 2 seconds', '2026-06-01T10:00:00Z')).toBe('2026-06-01T10:00:02.000Z');
    expect(once('in 20 minutes', '2026-06-01T10:00:00Z')).toBe('2026-06-01T10:20:00.000Z');
  });

  it('puts "next Monday morning" on Monday morning in Paris', () => {
    const result = new Date(once('next Monday morning', '2026-03-26T10:00:00Z'));
    const wall = new Intl.DateTimeFormat('en-GB', { timeZone: PARIS, weekday: 'long', day: 'numeric', hour: 'numeric', hourCycle: 'h23' }).format(result);
    expect(wall).toMatch(/^Monday 30(,| at)? 0?[5-9]$/);
  });

  it('honours another zone than the machine\'s', () => {
    expect(once('tomorrow at 9am', '2026-07-01T12:00:00Z', 'America/New_York')).toBe('2026-07-02T13:00:00.000Z');
  });

  it('refuses text with words it did not understand rather than guessing', () => {
    expect(parseWhen('whenever you feel like it', at('2026-06-01T10:00:00Z'), PARIS)).toBeUndefined();
  });
});

describe('recurrences turned into cron', () => {
  it.each([
    ['every day at 7:30', '30 7 * * *'],
    ['every weekday at 8', '0 8 * * 1-5'],
    ['every Monday at 9', '0 9 * * 1'],
    ['every monday and thursday at 6pm', '0 18 * * 1,4'],
    ['every weekend at 10am', '0 10 * * 0,6'],
    ['every 15 minutes', '*/15 * * * *'],
    ['every hour', '0 * * * *'],
  ])('"%s" is %s', (text, cron) => {
    expect(parseRecurrence(text)?.cron).toBe(cron);
  });

  it('fires "every day at 7:30" at 07:30 Paris time across the spring-forward change', () => {
    const first = nextOccurrence('30 7 * * *', at('2026-03-28T12:00:00Z'), PARIS);
    expect(new Date(first ?? 0).toISOString()).toBe('2026-03-29T05:30:00.000Z');
    const before = nextOccurrence('30 7 * * *', at('2026-03-27T12:00:00Z'), PARIS);
    expect(new Date(before ?? 0).toISOString()).toBe('2026-03-28T06:30:00.000Z');
  });

  it('finds the latest occurrence at or before a time, including that time itself', () => {
    expect(latestOccurrence('0 * * * *', at('2026-06-01T10:00:00Z'), PARIS)).toBe(at('2026-06-01T10:00:00Z'));
    expect(latestOccurrence('0 * * * *', at('2026-06-01T10:59:59Z'), PARIS)).toBe(at('2026-06-01T10:00:00Z'));
  });
});

describe('explicit times and errors', () => {
  it('reads an ISO run_at without offset on the zone\'s clock, and with an offset as given', () => {
    expect(parseRunAt('2026-12-24T18:00', PARIS)).toEqual({ success: true, value: at('2026-12-24T17:00:00Z') });
    expect(parseRunAt('2026-12-24T18:00:00Z', PARIS)).toEqual({ success: true, value: at('2026-12-24T18:00:00Z') });
  });

  it('moves a wall time skipped by DST forward, and takes the first of a repeated one', () => {
    expect(instantOfWallClock({ year: 2026, month: 3, day: 29, hour: 2, minute: 30, second: 0 }, PARIS)).toBe(at('2026-03-29T01:30:00Z'));
    expect(instantOfWallClock({ year: 2026, month: 10, day: 25, hour: 2, minute: 30, second: 0 }, PARIS)).toBe(at('2026-10-25T00:30:00Z'));
  });

  it('explains a bad cron expression with the forms that work', () => {
    const result = validateCron('61 * * * *', PARIS);
    expect(result.success).toBe(false);
    if (!result.success) expect(result.error).toMatch(/"61 \* \* \* \*" is not a valid cron expression.*5 fields "minute hour day-of-month month day-of-week"/);
    const short = validateCron('* * *', PARIS);
    expect(short.success).toBe(false);
    if (!short.success) expect(short.error).toMatch(/3 fields/);
  });

  it('says which forms work when a time cannot be understood', () => {
    const result = resolveSchedule({ when: 'when the cows come home' }, at('2026-06-01T10:00:00Z'), PARIS);
    expect(result.success).toBe(false);
    if (!result.success) expect(result.error).toMatch(/Could not understand the time "when the cows come home".*"in 20 minutes".*"every weekday at 8"/);
  });

  it('refuses a one-shot in the past and two schedules at once', () => {
    const past = resolveSchedule({ run_at: '2020-01-01T00:00:00Z' }, at('2026-06-01T10:00:00Z'), PARIS);
    expect(past).toMatchObject({ success: false, error: expect.stringMatching(/already past/) });
    const both = resolveSchedule({ cron: '0 8 * * *', when: 'tomorrow' }, at('2026-06-01T10:00:00Z'), PARIS);
    expect(both).toMatchObject({ success: false, error: expect.stringMatching(/exactly one of cron, run_at or when \(got cron and when\)/) });
  });
});
