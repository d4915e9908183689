import { describe, expect, it } from 'vitest';
import { splitReminder } from '../../src/scheduler/chat-commands.js';
import { nextOccurrence } from '../../src/time/timing.js';
import { DEFAULT_HOUR, parseWhenText, PART_OF_DAY_HOURS } from '../../src/time/when.js';
import { wallClockAt } from '../../src/lib/zoned.js';

const PARIS = 'Europe/Paris';
// Wednesday 25 March 2026, 10:00 in Paris.
const NOW = Date.parse('2026-03-25T09:00:00Z');

function reminder(args: string): { cron?: string; at?: number; spec: string; text: string } {
  const result = splitReminder(args, NOW, PARIS);
  if (!result.success) throw new Error(`refused "${args}": ${result.error}`);
  const { when, spec, text } = result.value;
  return { ...when, spec, text };
}
function refusal(args: string): string {
  const result = splitReminder(args, NOW, PARIS);
  if (result.success) throw new Error(`"${args}" was accepted as ${JSON.stringify(result.value)}`);
  return result.error;
}
const wall = (at: number | undefined) => {
  const clock = wallClockAt(at ?? 0, PARIS);
  return `${clock.month}-${clock.day} ${clock.hour}:${String(clock.minute).padStart(2, '0')}`;
};

describe('/remind and the schedule tool share one parser', () => {
  it('reads "daily at 9 water the plants" as a daily 09:00 reminder, not a one-off titled "daily water the plants"', () => {
    expect(reminder('daily at 9 water the plants')).toMatchObject({ cron: '0 9 * * *', text: 'water the plants' });
  });

  it('reads "at noon water the plants" as noon, titled "water the plants"', () => {
    const result = reminder('at noon water the plants');
    expect(result.text).toBe('water the plants');
    expect(wall(result.at)).toBe('3-25 12:00');
  });

  it('refuses "every 90 minutes" (cron cannot keep it) with examples, and never sets a one-off', () => {
    const error = refusal('every 90 minutes drink water');
    expect(error).toMatch(/every 30 minutes/);
    expect(error).toMatch(/every 2 hours between 9 and 17/);
    for (const text of ['every 45 minutes stretch', 'every 7 minutes x', 'every 5 hours x', 'every fortnight x', 'weekly x', 'every blue moon x']) {
      expect(() => refusal(text)).not.toThrow();
    }
  });

  it('keeps every N minutes and hours that divide the hour and the day', () => {
    expect(reminder('every 20 minutes breathe')).toMatchObject({ cron: '*/20 * * * *', text: 'breathe' });
    expect(reminder('every 120 minutes walk')).toMatchObject({ cron: '0 */2 * * *', text: 'walk' });
    expect(reminder('every 6 hours meds')).toMatchObject({ cron: '0 */6 * * *', text: 'meds' });
    expect(reminder('every hour at :15 check')).toMatchObject({ cron: '15 * * * *', text: 'check' });
  });

  it('reads "between 9 and 17" as 09:00 up to 17:00, with days', () => {
    expect(reminder('every 2 hours between 9 and 17 stretch')).toMatchObject({ cron: '0 9-16/2 * * *', text: 'stretch' });
    expect(reminder('every hour between 9 and 17 on weekdays drink')).toMatchObject({ cron: '0 9-16 * * 1-5', text: 'drink' });
    expect(reminder('every 15 minutes from 8am to 6pm on Monday and Friday log')).toMatchObject({ cron: '*/15 8-17 * * 1,5', text: 'log' });
    expect(refusal('every hour between 17 and 9 x')).toMatch(/first before the second/);
    expect(refusal('every hour between 9:30 and 17 x')).toMatch(/whole hours/);
  });

  it('reads "every first Monday" and "every last Friday" as those days of each month', () => {
    const first = reminder('every first Monday at 10 pay the rent');
    expect(first).toMatchObject({ cron: '0 10 * * 1#1', text: 'pay the rent' });
    expect(wall(nextOccurrence(first.cron ?? '', NOW, PARIS))).toBe('4-6 10:00');
    const last = reminder('every last Friday of the month invoices');
    expect(last).toMatchObject({ cron: `0 ${DEFAULT_HOUR} * * 5L`, text: 'invoices' });
    expect(wall(nextOccurrence(last.cron ?? '', NOW, PARIS))).toBe('3-27 9:00');
  });

  it('uses one set of defaults for parts of the day, in one-shots and repeats alike', () => {
    expect(PART_OF_DAY_HOURS.get('morning')).toBe(8);
    expect(wall(reminder('next Monday morning call the bank').at)).toBe('3-30 8:00');
    expect(reminder('every morning stretch')).toMatchObject({ cron: '0 8 * * *' });
    expect(reminder('every Monday morning plan the week')).toMatchObject({ cron: '0 8 * * 1', text: 'plan the week' });
    expect(wall(reminder('tomorrow evening call Dad').at)).toBe('3-26 18:00');
    expect(reminder('every evening journal')).toMatchObject({ cron: '0 18 * * *' });
    expect(wall(reminder('friday afternoon review').at)).toBe('3-27 14:00');
    expect(reminder('every day in the afternoon walk')).toMatchObject({ cron: '0 14 * * *', text: 'walk' });
    // A day without a time is 09:00, for a one-shot as for a repeat.
    expect(wall(reminder('tomorrow buy bread').at)).toBe('3-26 9:00');
    expect(reminder('every Tuesday bins')).toMatchObject({ cron: '0 9 * * 2' });
  });

  it('takes the time first or last, and refuses a time in the middle', () => {
    expect(reminder('water the plants every day at 9')).toMatchObject({ cron: '0 9 * * *', text: 'water the plants' });
    expect(reminder('call Mum tomorrow at 9am')).toMatchObject({ text: 'call Mum' });
    expect(reminder('in 2 hours to check the oven')).toMatchObject({ text: 'check the oven' });
    expect(refusal('call Mum tomorrow about the party')).toMatch(/put it first or last/);
  });

  it('gives the schedule tool the same schedule as /remind for the same words', () => {
    for (const when of ['daily at 9', 'at noon', 'every 2 hours between 9 and 17', 'every first Monday at 10', 'next Monday morning', 'every weekday at 8', 'in 20 minutes']) {
      const tool = parseWhenText(when, NOW, PARIS);
      const chat = splitReminder(`${when} do the thing`, NOW, PARIS);
      expect(tool.success && chat.success, when).toBe(true);
      if (tool.success && chat.success) expect(chat.value.when).toEqual(tool.value.schedule.type === 'cron' ? { cron: tool.value.schedule.cron } : { at: tool.value.schedule.at });
    }
    const refused = parseWhenText('every 90 minutes', NOW, PARIS);
    expect(refused.success).toBe(false);
    expect(parseWhenText('tomorrow at 9am or so', NOW, PARIS).success).toBe(false);
  });
});
