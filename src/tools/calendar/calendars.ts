import ICAL from 'ical.js';
import { CalendarError } from './errors.js';
import { expandObjects } from './expand.js';
import { CalDavClient, type CalendarInfo } from './client.js';
import type { CalendarSettings, CalendarSubscription } from './settings.js';
import type { CalendarObject, Occurrence } from './types.js';

/** Where one event lives: the account's client and the resource. */
export interface EventHome {
  client: CalDavClient;
  object: CalendarObject;
}

/**
 * Every configured calendar, read on demand: the accounts' calendars and the subscriptions, expanded on the client.
 * A calendar that fails is named in `problems`; the others still answer.
 */
export class Calendars {
  readonly clients: CalDavClient[];

  constructor(private readonly settings: CalendarSettings, private readonly timeZone: () => string) {
    this.clients = settings.accounts.map((account) => new CalDavClient(account, settings.timeoutMs));
  }

  /** Every occurrence overlapping [from, to), from every calendar and feed, in order of start. */
  async occurrences(range: { from: number; to: number }): Promise<{ occurrences: Occurrence[]; problems: string[] }> {
    const problems: string[] = [];
    const lists = await Promise.all([
      ...this.clients.map(async (client) => {
        try {
          const calendars = await client.calendars();
          const perCalendar = await Promise.all(calendars.map(async (calendar) => this.expand(client, calendar, range)));
          return perCalendar.flatMap((found) => {
            problems.push(...found.skipped.map((href) => `${client.account.name}: could not read ${href}`));
            return found.occurrences;
          });
        } catch (error) {
          problems.push(`${client.account.name}: ${error instanceof CalendarError ? error.message : String(error)}`);
          return [];
        }
      }),
      ...this.settings.subscriptions.map(async (feed) => {
        try {
          const object = await this.readFeed(feed);
          const found = expandObjects([object], range, this.timeZone(), { source: feed.name, calendar: feed.name, addresses: [], outside: true });
          if (found.skipped.length > 0) problems.push(`${feed.name}: ${feed.url} is not a calendar it can read (broken iCalendar): check tools.calendar.subscriptions`);
          return found.occurrences;
        } catch (error) {
          problems.push(`${feed.name}: ${error instanceof Error ? error.message : String(error)}`);
          return [];
        }
      }),
    ]);
    const occurrences = lists.flat().sort((left, right) => left.start - right.start || left.summary.localeCompare(right.summary));
    return { occurrences, problems };
  }

  /** Events starting in [from, to), for the heartbeat's probe; a calendar that fails is left out (never throws). */
  async soonEvents(from: number, to: number): Promise<Array<{ key: string; start: number; summary: string; location?: string; outside?: string }>> {
    const { occurrences } = await this.occurrences({ from, to });
    return occurrences.filter((occurrence) => !occurrence.allDay && occurrence.start >= from && occurrence.start < to).map((occurrence) => ({
      key: `${occurrence.source}\u0000${occurrence.uid}\u0000${occurrence.recurrenceId ?? ''}`,
      start: occurrence.start,
      summary: occurrence.summary,
      ...(occurrence.location ? { location: occurrence.location } : {}),
      ...(occurrence.outside ? { outside: `calendar:${occurrence.source}` } : {}),
    }));
  }

  /** The name of the subscription whose feed has an event with this UID (feeds that fail are passed over). */
  async feedHolding(uid: string): Promise<string | undefined> {
    const found = await Promise.all(this.settings.subscriptions.map(async (feed) => {
      try {
        const calendar = new ICAL.Component(ICAL.parse((await this.readFeed(feed)).data) as unknown[]);
        return calendar.getAllSubcomponents('vevent').some((vevent) => vevent.getFirstPropertyValue('uid') === uid) ? feed.name : undefined;
      } catch {
        return undefined;
      }
    }));
    return found.find((name) => name !== undefined);
  }

  /** Whether a name is a subscription's (read-only) rather than an account's. */
  isSubscription(name: string): boolean {
    return this.settings.subscriptions.some((feed) => feed.name === name);
  }

  /** The account's client by name (the first account when none is named). */
  client(name: string | undefined): CalDavClient | undefined {
    if (name === undefined) return this.clients[0];
    return this.clients.find((client) => client.account.name === name);
  }

  /** The client that owns an event seen in a listing. */
  clientOf(occurrence: Pick<Occurrence, 'source'>): CalDavClient | undefined {
    return this.clients.find((client) => client.account.name === occurrence.source);
  }

  private async expand(client: CalDavClient, calendar: CalendarInfo, range: { from: number; to: number }): Promise<ReturnType<typeof expandObjects>> {
    const objects = await client.objects(calendar, range);
    return expandObjects(objects, range, this.timeZone(), { source: client.account.name, calendar: calendar.name, addresses: client.account.addresses, outside: false });
  }

  private async readFeed(feed: CalendarSubscription): Promise<CalendarObject> {
    let response: Response;
    try {
      response = await fetch(feed.url, { signal: AbortSignal.timeout(this.settings.timeoutMs), headers: { accept: 'text/calendar' } });
    } catch (error) {
      throw new CalendarError('feed', `could not fetch ${feed.url} (${error instanceof Error ? error.message : String(error)}): check tools.calendar.subscriptions`, { cause: error });
    }
    if (!response.ok) throw new CalendarError('feed', `${feed.url} answered HTTP ${response.status}: check tools.calendar.subscriptions`);
    const data = await response.text();
    // A login page or an error page answered 200 is common; say so rather than "no events". The page's text is the
    // feed's, outside content, so only its type is named.
    if (!/^\s*BEGIN:VCALENDAR/i.test(data)) {
      const type = (response.headers.get('content-type') ?? 'no content type').slice(0, 60);
      throw new CalendarError('feed', `${feed.url} answered something that is not an iCalendar feed (${type}): check tools.calendar.subscriptions`);
    }
    return { href: feed.url, data };
  }
}
