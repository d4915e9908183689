import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeCaldav, startRadicale, type CaldavServer } from '../../helpers/caldav-server.js';
import { calendarTool, ics, putEvent, WEEKLY } from './fixtures.js';

const version = (output: string, uid: string): string => new RegExp(`uid=${uid}(?: occurrence=\\S+)? version=("[^"]*"|\\S+)`).exec(output)?.[1] ?? '';


describeCaldav('calendar writes on radicale', () => {
  let server: CaldavServer;
  beforeAll(async () => {
    server = await startRadicale();
    await putEvent(server, 'weekly', WEEKLY);
  });
  afterAll(async () => server.close());

  it('creates an event from words on the person\'s clock and lists it back', async () => {
    const { call } = calendarTool(server);
    const made = await call({ action: 'create', summary: 'Dentist', start: 'tomorrow at 9am', end: 'tomorrow at 10am', location: 'Main St' });
    expect(made.output).toMatch(/^Created "Dentist" in home\/Personal \[uid=/);
    const listed = await call({ action: 'list', from: '2026-10-02', days: 1 });
    expect(listed.output).toContain('Fri, 2 Oct 2026 09:00–10:00 Dentist at Main St');
  });

  it('changes one occurrence of a series as an override in the same resource, leaving the others', async () => {
    const { call } = calendarTool(server);
    const updated = await call({ action: 'update', uid: 'weekly-sync', occurrence: '2026-10-12T07:00:00.000Z', start: '2026-10-12T11:00', summary: 'Weekly sync (late)' });
    expect(updated.output).toMatch(/^Updated/);
    const listed = await call({ action: 'list', from: '2026-10-05', days: 14 });
    expect(listed.output).toContain('Mon, 12 Oct 2026 11:00–11:30 Weekly sync (late)');
    expect(listed.output).toContain('Mon, 5 Oct 2026 09:00–09:30 Weekly sync\n');
    const raw = await (await fetch(`${server.calendarUrl}weekly.ics`, { headers: { authorization: `Basic ${Buffer.from(`${server.user}:${server.password}`).toString('base64')}` } })).text();
    expect(raw.match(/BEGIN:VEVENT/g)).toHaveLength(3);
    expect(raw).toContain('RECURRENCE-ID;TZID=Europe/Berlin:20261012T090000');
    expect(raw.match(/^RRULE:FREQ=WEEKLY/gm)).toHaveLength(1);
  });

  it('deletes one occurrence with an EXDATE and keeps the series', async () => {
    const { call } = calendarTool(server);
    expect((await call({ action: 'delete', uid: 'weekly-sync', occurrence: '2026-11-09T08:00:00.000Z' })).success).toBe(true);
    const listed = await call({ action: 'list', from: '2026-11-09', days: 8 });
    expect(listed.output).not.toContain('9 Nov 2026');
    expect(listed.output).toContain('Mon, 16 Nov 2026 09:00–09:30 Weekly sync');
  });

  it('refuses a change over a version another client replaced (412), loses nothing, and writes once called with the new version', async () => {
    const { call } = calendarTool(server);
    const made = await call({ action: 'create', summary: 'Team lunch', start: '2026-10-07T12:30' });
    const uid = /uid=([\w-]+)/.exec(made.output)?.[1] ?? '';
    const seen = version((await call({ action: 'list', from: '2026-10-07', days: 1 })).output, uid);
    expect(seen).not.toBe('');
    // The person's phone changes it meanwhile (a plain PUT, as any client writes).
    await putEvent(server, uid, ics('BEGIN:VEVENT', `UID:${uid}`, 'DTSTAMP:20260901T000000Z', 'SUMMARY:Team lunch (phone)', 'DTSTART;TZID=Europe/Berlin:20261007T123000', 'DTEND;TZID=Europe/Berlin:20261007T133000', 'END:VEVENT'));
    const refused = await call({ action: 'update', uid, version: seen, location: 'Canteen' });
    expect(refused.success).toBe(false);
    expect(refused.output).toContain('Nothing was changed');
    expect(refused.output).toContain('Team lunch (phone)');
    const current = /call again with version=(\S+)\./.exec(refused.output)?.[1] ?? '';
    expect(current).not.toBe(seen);
    expect((await call({ action: 'list', from: '2026-10-07', days: 1 })).output).toContain('12:30–13:30 Team lunch (phone)\n');
    const retried = await call({ action: 'update', uid, version: current, location: 'Canteen' });
    expect(retried.success).toBe(true);
    expect((await call({ action: 'list', from: '2026-10-07', days: 1 })).output).toContain('Team lunch (phone) at Canteen');
  });

  it('deletes a whole event only over the version it was shown', async () => {
    const { call } = calendarTool(server);
    const made = await call({ action: 'create', summary: 'Call Bob', start: '2026-10-08T15:00' });
    const uid = /uid=([\w-]+)/.exec(made.output)?.[1] ?? '';
    expect((await call({ action: 'delete', uid, version: '"stale"' })).success).toBe(false);
    expect((await call({ action: 'list', from: '2026-10-08', days: 1 })).output).toContain('Call Bob');
    expect((await call({ action: 'delete', uid })).success).toBe(true);
    expect((await call({ action: 'list', from: '2026-10-08', days: 1 })).output).not.toContain('Call Bob');
  });
});
