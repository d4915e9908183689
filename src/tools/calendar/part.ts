import type { Config } from '../../config/schema.js';
import { errorMessage } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { ChatCommand, DoctorLine, Part } from '../../part.js';
import type { SchedulerAccess } from '../context.js';
import { agenda } from './agenda.js';
import { CalendarAlarms } from './alarms.js';
import { Calendars } from './calendars.js';
import { CalendarError } from './errors.js';
import { resolveCalendarSettings } from './settings.js';
import { createCalendarTool } from './tool.js';
import { dayRange, localDate } from './when.js';

export interface CalendarPart {
  part: Part;
  calendars: Calendars;
  alarms: CalendarAlarms | undefined;
}

/**
 * The calendar: the `calendar` tool, `/today` and `/week`, event alarms as reminders, and a doctor that logs in to
 * each account. Nothing connects
 * here: discovery happens on the first call. No `tools.calendar` (or neither an account nor a feed): one log line and
 * no part.
 */
export function createCalendarPart(deps: { config: Config; log: Logger; scheduler?: SchedulerAccess; now?: () => number }): CalendarPart | undefined {
  const resolved = resolveCalendarSettings(deps.config.tools.calendar);
  const log = deps.log.child({ component: 'calendar' });
  if (!resolved.enabled) {
    log.info(`calendar: ${resolved.reason}; the calendar tool is off`);
    return undefined;
  }
  const { settings } = resolved;
  // The person's zone is a live key: read it per use.
  const timeZone = () => deps.config.timezone;
  const now = deps.now ?? Date.now;
  const calendars = new Calendars(settings, timeZone);
  const tool = createCalendarTool({ calendars, timeZone, now, servers: settings.accounts.map((account) => new URL(account.url).host) });
  const command = (days: number, description: string): ChatCommand => ({
    description,
    run: async () => agenda(calendars, { days, timeZone: timeZone(), now: now() }),
  });
  // Alarms become reminders only in a started daemon (start() is never called for one-shot commands).
  const alarms = deps.scheduler && settings.alarmDays > 0 ? new CalendarAlarms({ calendars, scheduler: deps.scheduler, timeZone, now, days: settings.alarmDays, log }) : undefined;
  log.info({ accounts: settings.accounts.map((account) => account.name), subscriptions: settings.subscriptions.map((feed) => feed.name) }, 'calendar: on');
  const part: Part = {
    name: 'calendar',
    tools: [tool],
    commands: new Map([['today', command(1, 'today\'s events')], ['week', command(7, 'the events of the next seven days')]]),
    doctor: async () => calendarDoctor(calendars, timeZone(), now()),
    start: async () => alarms?.start(),
    stop: async () => alarms?.stop(),
  };
  return { part, calendars, alarms };
}

/** Per account: the login and discovery, the calendars found, and a time-range query of today. */
async function calendarDoctor(calendars: Calendars, timeZone: string, now: number): Promise<DoctorLine[]> {
  const lines: DoctorLine[] = [];
  const today = dayRange(localDate(now, timeZone), 1, timeZone);
  for (const client of calendars.clients) {
    const label = `calendar: ${client.account.name} at ${client.account.url}`;
    try {
      const found = await client.calendars();
      let events = 0;
      for (const calendar of found) events += (await client.objects(calendar, today)).length;
      lines.push({ status: 'ok', label, detail: `logged in; calendars ${found.map((calendar) => calendar.name).join(', ')}; ${events} event resource(s) today` });
    } catch (error) {
      const message = error instanceof CalendarError ? error.message : errorMessage(error);
      const at = message.lastIndexOf(': check ');
      lines.push({ status: 'fail', label, detail: at > 0 ? message.slice(0, at) : message, ...(at > 0 ? { fix: message.slice(at + 2) } : {}) });
    }
  }
  return lines;
}
