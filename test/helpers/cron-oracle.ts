// Contract: an independent oracle for 5-field cron in an IANA zone. It shares no code with cron-parser or luxon:
// fields are read here, every wall-clock day in the window is tested the way Vixie cron's cron.c tests a minute
// (DOM_STAR / DOW_STAR: a day field starting with "*" makes the day test an AND, else an OR), and each matching
// wall time is turned into an instant by Temporal (temporal-polyfill) with disambiguation "compatible" — the rule
// docs/scheduling.md states: a skipped wall time moves forward by the length of the jump; a repeated wall time is its
// first occurrence for a job at fixed hours, and both occurrences for one whose hour field is a wildcard or a step
// (Vixie cron's "wildcard jobs", croniter). It is slow and obvious on purpose: a brute force over days, hours, minutes.
import { Temporal } from 'temporal-polyfill';

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

function value(text: string, names: readonly string[], offset: number): number {
  const index = names.indexOf(text.toLowerCase());
  if (index >= 0) return index + offset;
  if (!/^\d+$/.test(text)) throw new Error(`oracle: bad value ${text}`);
  return Number(text);
}

/** The values a field allows, as crontab(5) describes: lists of `*`, `a`, `a-b`, each with an optional `/step`. */
function field(text: string, min: number, max: number, names: readonly string[] = [], offset = 0): Set<number> {
  const out = new Set<number>();
  for (const item of text.split(',')) {
    const [range = '', stepText] = item.split('/');
    const step = stepText === undefined ? 1 : Number(stepText);
    let low = min;
    let high = max;
    if (range !== '*' && range !== '?') {
      const [from = '', to] = range.split('-');
      low = value(from, names, offset);
      high = to === undefined ? (stepText === undefined ? low : max) : value(to, names, offset);
    }
    for (let current = low; current <= high; current += step) out.add(current);
  }
  return out;
}

export interface OracleCron {
  minutes: Set<number>; hours: Set<number>; days: Set<number>; months: Set<number>; weekdays: Set<number>;
  dayStar: boolean; weekdayStar: boolean;
  /** The hour field is a wildcard or a step: a repeated wall time runs twice. */
  bothPasses: boolean;
}

export function parseOracleCron(expression: string): OracleCron {
  const [minute = '', hour = '', day = '', month = '', weekday = ''] = expression.trim().split(/\s+/);
  const weekdays = field(weekday, 0, 7, DAYS);
  if (weekdays.has(7)) weekdays.add(0);
  return {
    minutes: field(minute, 0, 59), hours: field(hour, 0, 23), days: field(day, 1, 31), months: field(month, 1, 12, MONTHS, 1), weekdays,
    dayStar: day.startsWith('*') || day === '?', weekdayStar: weekday.startsWith('*') || weekday === '?',
    bothPasses: hour.startsWith('*') || hour.includes('/'),
  };
}

function dayMatches(cron: OracleCron, date: Temporal.PlainDate): boolean {
  if (!cron.months.has(date.month)) return false;
  const byDay = cron.days.has(date.day);
  const byWeekday = cron.weekdays.has(date.dayOfWeek % 7);
  return cron.dayStar || cron.weekdayStar ? byDay && byWeekday : byDay || byWeekday;
}

/** Every run instant (epoch ms) in (from, to], sorted, each once. */
export function oracleRuns(expression: string, timeZone: string, from: number, to: number): number[] {
  const cron = parseOracleCron(expression);
  // Wall days a little wider than the window: a skipped wall time lands after its own day.
  const first = Temporal.Instant.fromEpochMilliseconds(from).toZonedDateTimeISO(timeZone).toPlainDate().subtract({ days: 2 });
  const last = Temporal.Instant.fromEpochMilliseconds(to).toZonedDateTimeISO(timeZone).toPlainDate().add({ days: 2 });
  const runs = new Set<number>();
  for (let date = first; Temporal.PlainDate.compare(date, last) <= 0; date = date.add({ days: 1 })) {
    if (!dayMatches(cron, date)) continue;
    for (const hour of cron.hours) {
      for (const minute of cron.minutes) {
        const wall = date.toPlainDateTime({ hour, minute });
        const instants = [wall.toZonedDateTime(timeZone, { disambiguation: 'compatible' })];
        const later = wall.toZonedDateTime(timeZone, { disambiguation: 'later' });
        // Repeated (not skipped): the later instant shows the same wall time.
        if (cron.bothPasses && later.toPlainDateTime().equals(wall)) instants.push(later);
        for (const { epochMilliseconds: instant } of instants) if (instant > from && instant <= to) runs.add(instant);
      }
    }
  }
  return [...runs].sort((a, b) => a - b);
}

/** The zone's offset transitions between two instants (epoch ms), from Temporal's own zone data. */
export function transitions(timeZone: string, from: number, to: number): number[] {
  const out: number[] = [];
  let cursor = Temporal.Instant.fromEpochMilliseconds(from).toZonedDateTimeISO(timeZone);
  for (;;) {
    const next = cursor.getTimeZoneTransition('next');
    if (!next || next.epochMilliseconds > to) return out;
    out.push(next.epochMilliseconds);
    cursor = next;
  }
}
