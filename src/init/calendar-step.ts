import { CalDavClient } from '../tools/calendar/client.js';
import type { SetupFlags } from './flags.js';
import type { SetupUi } from './ui.js';

export type CalendarChoice = { url: string; user: string; password: boolean } | 'off';

/**
 * The calendar: one CalDAV account (the server is the source of truth; nothing is copied). With a URL the calendars
 * are looked up once, as `familiar doctor` does; a failure is a warning, not a stop. Returns the choice (undefined:
 * leave tools.calendar as it is) and the password for `.env`.
 */
export async function chooseCalendar(ui: SetupUi, flags: SetupFlags): Promise<{ choice: CalendarChoice | undefined; env: Record<string, string> }> {
  if (flags.calendar.off) return { choice: 'off', env: {} };
  let { url, user, password } = flags.calendar;
  if (url === undefined) {
    if (!ui.interactive) return { choice: undefined, env: {} };
    const wanted = await ui.confirm({ message: 'Calendar: connect your CalDAV calendar (Radicale, Baïkal, Nextcloud, Xandikos)?', initialValue: false });
    if (!wanted) return { choice: undefined, env: {} };
    url = await ui.text({ message: 'The CalDAV server\'s address', placeholder: 'https://dav.example.com/', validate: (value) => (/^https?:\/\/\S+$/.test(value.trim()) ? undefined : 'an http(s):// address') });
    user = await ui.text({ message: 'Your login there (empty: none)', initialValue: user ?? '' });
    password = user.trim() !== '' ? await ui.password({ message: 'Its password (an app password for Nextcloud)' }) : '';
  }
  const account = { name: 'home', url: url.trim(), user: (user ?? '').trim(), password: password ?? '', calendars: [], addresses: [] };
  try {
    const found = await new CalDavClient(account, 10_000).calendars();
    ui.success(`Calendar: found ${found.map((calendar) => calendar.name).join(', ')} at ${account.url}.`);
  } catch (error) {
    ui.warn(`Calendar: ${error instanceof Error ? error.message : String(error)}. It is written anyway; familiar doctor checks it again.`);
  }
  return { choice: { url: account.url, user: account.user, password: account.password !== '' }, env: account.password !== '' ? { CALDAV_PASSWORD: account.password } : {} };
}
