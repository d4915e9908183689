import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../../src/db/database.js';
import { schedulerAccess } from '../../../src/scheduler/access.js';
import { Scheduler } from '../../../src/scheduler/scheduler.js';
import { JobStore } from '../../../src/scheduler/store.js';
import { eventsProbe } from '../../../src/heartbeat/probes.js';
import { ALARM_PREFIX, CalendarAlarms } from '../../../src/tools/calendar/alarms.js';
import { captureLogger, tempDir } from '../../helpers/app.js';
import { describeCaldav, startRadicale, type CaldavServer } from '../../helpers/caldav-server.js';
import { calendarTool, ics, putEvent, ZONE } from './fixtures.js';

const NOW = Date.parse('2026-10-01T08:00:00Z');
const WITH_ALARMS = ics(
  'BEGIN:VEVENT', 'UID:alarmed', 'DTSTAMP:20260901T000000Z', 'SUMMARY:Piano lesson', 'DTSTART;TZID=Europe/Berlin:20261002T170000',
  'DTEND;TZID=Europe/Berlin:20261002T180000', 'RRULE:FREQ=DAILY;COUNT=3',
  'BEGIN:VALARM', 'ACTION:DISPLAY', 'DESCRIPTION:Piano', 'TRIGGER:-PT30M', 'END:VALARM', 'END:VEVENT',
);

describeCaldav('calendar alarms as reminders, and the heartbeat\'s events probe', () => {
  let server: CaldavServer;
  let db: Database;
  let scheduler: Scheduler;
  beforeAll(async () => {
    server = await startRadicale();
    await putEvent(server, 'alarmed', WITH_ALARMS);
    await putEvent(server, 'soon', ics('BEGIN:VEVENT', 'UID:soon-1', 'DTSTAMP:20260901T000000Z', 'SUMMARY:Call with the bank', 'DTSTART:20261001T090000Z', 'DTEND:20261001T093000Z', 'ORGANIZER:mailto:advisor@bank.example', 'END:VEVENT'));
    db = openDatabase(tempDir('familiar-calendar-alarms-'));
    scheduler = new Scheduler({ store: new JobStore(db), timeZone: ZONE, log: captureLogger([], []), execute: async () => ({ status: 'ok', output: '' }), runTimeoutMs: 60_000, catchUpWindowMs: 3_600_000, closeWaitMs: 100, now: () => NOW });
  });
  afterAll(async () => {
    await scheduler.close();
    db.close();
    await server.close();
  });

  const alarms = () => new CalendarAlarms({ calendars: calendarTool(server, NOW).calendars, scheduler: schedulerAccess(scheduler), timeZone: () => ZONE, now: () => NOW, days: 7, log: captureLogger([], []) });
  const jobs = () => scheduler.list().filter((job) => job.id.startsWith(ALARM_PREFIX));

  it('makes one reminder per alarm of each occurrence, half an hour before it, on the person\'s clock', async () => {
    expect(await alarms().sync()).toEqual({ created: 3, removed: 0 });
    const made = jobs().sort((left, right) => (left.nextRunAt ?? 0) - (right.nextRunAt ?? 0));
    expect(made.map((job) => new Date(job.nextRunAt ?? 0).toISOString())).toEqual(['2026-10-02T14:30:00.000Z', '2026-10-03T14:30:00.000Z', '2026-10-04T14:30:00.000Z']);
    expect(made.every((job) => job.kind === 'reminder')).toBe(true);
    expect(made[0]?.prompt).toBe('Piano lesson — Fri, 2 Oct 2026 17:00–18:00');
  });

  it('does not duplicate them on a re-sync', async () => {
    expect(await alarms().sync()).toEqual({ created: 0, removed: 0 });
    expect(jobs()).toHaveLength(3);
  });

  it('drops the reminder of an occurrence deleted on the server', async () => {
    const { call } = calendarTool(server, NOW);
    expect((await call({ action: 'delete', uid: 'alarmed', occurrence: '2026-10-03T15:00:00.000Z' })).success).toBe(true);
    expect(await alarms().sync()).toEqual({ created: 0, removed: 1 });
    expect(jobs()).toHaveLength(2);
  });

  it('has the heartbeat see an event starting within two hours, labelled as outside content when someone else wrote it', async () => {
    const probe = eventsProbe((from, to) => calendarTool(server, NOW).calendars.soonEvents(from, to), (at) => new Date(at).toISOString().slice(11, 16));
    const items = await probe.check(NOW);
    expect(items).toEqual([{ key: expect.stringContaining('soon-1'), text: 'event starting at 09:00: Call with the bank', outside: 'calendar:home' }]);
  });
});
