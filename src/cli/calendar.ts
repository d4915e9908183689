import { agenda } from '../tools/calendar/agenda.js';
import { createCalendarPart } from '../tools/calendar/part.js';
import { parseDay } from '../tools/calendar/when.js';
import { parseCommandArgs } from './args.js';
import type { Command } from './context.js';
import { optionsOf } from './spec.js';

const USAGE = `usage: familiar calendar <action>
  list [--from DAY] [--days N]   events from a day on (default: today and the 6 days after)
  today                          today's events
`;

/** `familiar calendar list|today`: reads the servers of tools.calendar directly; no daemon, no database. */
export const calendarCommand: Command = async (context) => {
  let parsed;
  try {
    parsed = parseCommandArgs(context.args, optionsOf('calendar'));
  } catch (error) {
    context.io.stderr.write(`familiar calendar: ${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  const action = parsed.positionals[0] ?? 'today';
  if (action !== 'list' && action !== 'today') {
    context.io.stderr.write(USAGE);
    return 2;
  }
  const { config } = context.loadConfig();
  const made = createCalendarPart({ config, log: context.logger('quiet') });
  if (!made) {
    context.io.stderr.write('familiar calendar: no calendar is configured; add tools.calendar (see docs/tools/calendar.md)\n');
    return 1;
  }
  const now = Date.now();
  const days = action === 'today' ? 1 : Number(parsed.values.days ?? 7);
  if (!Number.isInteger(days) || days < 1 || days > 366) {
    context.io.stderr.write('familiar calendar: --days must be a whole number from 1 to 366\n');
    return 2;
  }
  let first: string | undefined;
  if (action === 'list' && typeof parsed.values.from === 'string') {
    const day = parseDay(parsed.values.from, now, config.timezone);
    if (!day.success) {
      context.io.stderr.write(`familiar calendar: --from: ${day.error}\n`);
      return 2;
    }
    first = day.value;
  }
  context.io.stdout.write(`${await agenda(made.calendars, { days, timeZone: config.timezone, now, ...(first !== undefined ? { first } : {}) })}\n`);
  return 0;
};
