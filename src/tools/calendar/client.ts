import type { DAVAccount, DAVCalendar } from 'tsdav';
import { errorMessage } from '../../errors.js';
import { CalendarError } from './errors.js';
import type { CalendarAccount } from './settings.js';
import type { CalendarObject } from './types.js';

/** One calendar of an account, as discovered. */
export interface CalendarInfo {
  name: string;
  url: string;
}

export type WriteOutcome = { written: true; etag?: string } | { written: false; stale: true };

// tsdav (and its XML library) load on the first calendar call, not at start.
const loadTsdav = () => import('tsdav');
let tsdavModule: ReturnType<typeof loadTsdav> | undefined;
const tsdav = (): ReturnType<typeof loadTsdav> => (tsdavModule ??= loadTsdav());

/**
 * One CalDAV account. Discovery (well-known, principal, calendar home) and the calendar-query REPORT go through
 * tsdav; GET, PUT and DELETE of one resource are plain requests, so that the ETag and a 412 are ours to see.
 * Nothing is cached but the list of calendars: the server stays the source of truth.
 */
export class CalDavClient {
  private discovered: Promise<CalendarInfo[]> | undefined;
  private readonly headers: Record<string, string>;

  constructor(readonly account: CalendarAccount, private readonly timeoutMs: number) {
    this.headers = account.user !== '' ? { authorization: `Basic ${Buffer.from(`${account.user}:${account.password}`).toString('base64')}` } : {};
  }

  /** The calendars to use: those `calendars` names (or all), with VEVENT support. Throws CalendarError. */
  calendars(): Promise<CalendarInfo[]> {
    this.discovered ??= this.discover().catch((error: unknown) => {
      this.discovered = undefined;
      throw error;
    });
    return this.discovered;
  }

  /** The calendar new events go to: `default`, else the first one used. */
  async defaultCalendar(): Promise<CalendarInfo> {
    const calendars = await this.calendars();
    const wanted = this.account.default;
    const found = wanted === undefined ? calendars[0] : calendars.find((calendar) => matches(calendar, wanted));
    if (!found) throw new CalendarError('calendar_missing', `tools.calendar account "${this.account.name}" has no calendar "${wanted ?? ''}"; calendars: ${calendars.map((calendar) => calendar.name).join(', ')}`);
    return found;
  }

  /** The resources with an event overlapping [from, to) (a calendar-query with a time-range: series included). */
  async objects(calendar: CalendarInfo, range: { from: number; to: number }): Promise<CalendarObject[]> {
    const { fetchCalendarObjects } = await tsdav();
    const objects = await this.call('read the calendar', () => fetchCalendarObjects({
      calendar: { url: calendar.url } as DAVCalendar,
      timeRange: { start: new Date(range.from).toISOString(), end: new Date(range.to).toISOString() },
      urlFilter: () => true,
      headers: this.headers,
      fetchOptions: { signal: AbortSignal.timeout(this.timeoutMs) },
    }));
    return objects.filter((object) => typeof object.data === 'string' && object.data.includes('BEGIN:VCALENDAR'))
      .map((object) => ({ href: object.url, data: object.data as string, ...(object.etag !== undefined ? { etag: object.etag } : {}) }));
  }

  /** The resource holding the event with this UID (a calendar-query on UID), or undefined. */
  async find(uid: string): Promise<CalendarObject | undefined> {
    const { fetchCalendarObjects } = await tsdav();
    for (const calendar of await this.calendars()) {
      const found = await this.call('find the event', () => fetchCalendarObjects({
        calendar: { url: calendar.url } as DAVCalendar,
        filters: [{ 'comp-filter': { _attributes: { name: 'VCALENDAR' }, 'comp-filter': { _attributes: { name: 'VEVENT' }, 'prop-filter': { _attributes: { name: 'UID' }, 'text-match': { _attributes: { collation: 'i;octet' }, _text: uid } } } } }],
        urlFilter: () => true,
        headers: this.headers,
        fetchOptions: { signal: AbortSignal.timeout(this.timeoutMs) },
      }));
      const object = found.find((candidate) => typeof candidate.data === 'string' && candidate.data.includes(uid));
      if (object) return { href: object.url, data: object.data as string, ...(object.etag !== undefined ? { etag: object.etag } : {}) };
    }
    return undefined;
  }

  /** One resource and its ETag, or undefined when it is gone. */
  async read(href: string): Promise<CalendarObject | undefined> {
    const response = await this.request(href, { method: 'GET' });
    if (response.status === 404 || response.status === 410) return undefined;
    if (!response.ok) throw this.refused('read the event', response.status);
    const etag = response.headers.get('etag');
    return { href, data: await response.text(), ...(etag !== null ? { etag } : {}) };
  }

  /** Creates a resource (never over an existing one: If-None-Match). */
  async create(calendar: CalendarInfo, uid: string, data: string): Promise<{ href: string; etag?: string }> {
    const href = new URL(`${encodeURIComponent(uid)}.ics`, calendar.url.endsWith('/') ? calendar.url : `${calendar.url}/`).href;
    const response = await this.request(href, { method: 'PUT', body: data, headers: { 'content-type': 'text/calendar; charset=utf-8', 'if-none-match': '*' } });
    if (!response.ok) throw this.refused('create the event', response.status, await response.text().catch(() => ''));
    const etag = response.headers.get('etag');
    return { href, ...(etag !== null ? { etag } : {}) };
  }

  /** Replaces a resource only if it is still the version `etag` names; a 412 is `stale`, never retried here. */
  async write(href: string, data: string, etag: string): Promise<WriteOutcome> {
    const response = await this.request(href, { method: 'PUT', body: data, headers: { 'content-type': 'text/calendar; charset=utf-8', 'if-match': etag } });
    if (response.status === 412) return { written: false, stale: true };
    if (!response.ok) throw this.refused('change the event', response.status, await response.text().catch(() => ''));
    const next = response.headers.get('etag');
    return { written: true, ...(next !== null ? { etag: next } : {}) };
  }

  /** Deletes a resource only if it is still the version `etag` names. */
  async remove(href: string, etag: string): Promise<WriteOutcome> {
    const response = await this.request(href, { method: 'DELETE', headers: { 'if-match': etag } });
    if (response.status === 412) return { written: false, stale: true };
    if (!response.ok && response.status !== 404) throw this.refused('delete the event', response.status);
    return { written: true };
  }

  private async discover(): Promise<CalendarInfo[]> {
    const { createAccount, fetchCalendars } = await tsdav();
    const fetchOptions = { signal: AbortSignal.timeout(this.timeoutMs) };
    const account = await this.call('find the calendars', () => createAccount({
      account: { serverUrl: this.account.url, accountType: 'caldav' } as DAVAccount, headers: this.headers, fetchOptions,
    }));
    const found = await this.call('list the calendars', () => fetchCalendars({ account, headers: this.headers, fetchOptions }));
    const all = found
      .filter((calendar) => !calendar.components || calendar.components.includes('VEVENT'))
      .map((calendar) => ({ url: calendar.url, name: typeof calendar.displayName === 'string' && calendar.displayName !== '' ? calendar.displayName : lastSegment(calendar.url) }));
    const wanted = this.account.calendars;
    const chosen = wanted.length === 0 ? all : all.filter((calendar) => wanted.some((name) => matches(calendar, name)));
    if (chosen.length === 0) {
      throw new CalendarError('calendar_missing', `no calendar found${wanted.length > 0 ? ` named ${wanted.join(', ')}` : ''} at ${this.account.url} (found: ${all.map((calendar) => calendar.name).join(', ') || 'none'}): check tools.calendar.accounts[].calendars`);
    }
    return chosen;
  }

  private async request(href: string, init: { method: string; body?: string; headers?: Record<string, string> }): Promise<Response> {
    return this.call(`${init.method} the event`, () => fetch(href, { ...init, headers: { ...this.headers, ...init.headers }, signal: AbortSignal.timeout(this.timeoutMs) }));
  }

  private async call<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof CalendarError) throw error;
      const message = errorMessage(error);
      if (/\b401\b|unauthori[sz]ed/i.test(message)) throw new CalendarError('auth', `${this.account.url} refused the login: check tools.calendar.accounts[].user and password`, { cause: error });
      throw new CalendarError('unreachable', `could not ${what} at ${this.account.url} (${message}): check tools.calendar.accounts[].url`, { cause: error });
    }
  }

  private refused(what: string, status: number, body = ''): CalendarError {
    if (status === 401 || status === 403) return new CalendarError('auth', `${this.account.url} refused to ${what} (HTTP ${status}): check tools.calendar.accounts[].user and password`);
    return new CalendarError('refused', `the server refused to ${what} (HTTP ${status}${body ? `: ${body.slice(0, 200)}` : ''})`);
  }
}

function matches(calendar: CalendarInfo, wanted: string): boolean {
  return calendar.name.toLowerCase() === wanted.toLowerCase() || calendar.url.replace(/\/+$/, '') === wanted.replace(/\/+$/, '') || lastSegment(calendar.url) === wanted;
}

function lastSegment(url: string): string {
  return decodeURIComponent(new URL(url).pathname.replace(/\/+$/, '').split('/').pop() ?? url);
}
