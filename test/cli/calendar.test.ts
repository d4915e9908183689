import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { loadConfig, validateConfig } from '../../src/config/load.js';
import { createCalendarPart } from '../../src/tools/calendar/part.js';
import { localDate } from '../../src/tools/calendar/when.js';
import { captureLogger, tempDir, writeTestConfig } from '../helpers/app.js';
import { describeCaldav, startRadicale, type CaldavServer } from '../helpers/caldav-server.js';
import { captureIo } from '../helpers/io.js';
import { ics, putEvent } from '../tools/calendar/fixtures.js';

const ZONE = 'Europe/Paris';

describeCaldav('familiar calendar, /today, the calendar doctor and init', () => {
  let server: CaldavServer;
  let configPath: string;
  const today = localDate(Date.now(), ZONE).replaceAll('-', '');
  beforeAll(async () => {
    server = await startRadicale();
    await putEvent(server, 'today', ics('BEGIN:VEVENT', 'UID:today-1', 'DTSTAMP:20260901T000000Z', 'SUMMARY:Haircut', `DTSTART;TZID=Europe/Paris:${today}T233000`, `DTEND;TZID=Europe/Paris:${today}T234500`, 'LOCATION:Salon', 'END:VEVENT'));
    await putEvent(server, 'run', ics('BEGIN:VEVENT', 'UID:run-1', 'DTSTAMP:20260901T000000Z', 'SUMMARY:Morning run', 'DTSTART;TZID=Europe/Paris:20300325T070000', 'DTEND;TZID=Europe/Paris:20300325T073000', 'RRULE:FREQ=DAILY;COUNT=10', 'EXDATE;TZID=Europe/Paris:20300330T070000', 'END:VEVENT'));
    await putEvent(server, 'later', ics('BEGIN:VEVENT', 'UID:later-1', 'DTSTAMP:20260901T000000Z', 'SUMMARY:Dinner', 'DTSTART;TZID=Europe/Paris:20300105T190000', 'DTEND;TZID=Europe/Paris:20300105T210000', 'ORGANIZER:mailto:friend@example.net', 'END:VEVENT'));
    configPath = writeTestConfig(tempDir(), undefined, { log: { level: 'warn', format: 'json' }, tools: { calendar: { accounts: [{ name: 'home', url: server.url, user: server.user, password: server.password, addresses: ['person@example.org'] }] } } });
  });
  afterAll(async () => server.close());

  const cli = async (...args: string[]) => {
    const io = captureIo();
    const code = await runCli(['calendar', '--config', configPath, ...args], io);
    return { code, out: io.out(), err: io.err() };
  };

  it('prints today\'s events on the configured clock', async () => {
    const { code, out } = await cli('today');
    expect(code).toBe(0);
    expect(out).toMatch(/23:30–23:45 {2}Haircut @ Salon\n/);
  });

  it('lists the days asked for and says who wrote an event from someone else', async () => {
    const { code, out } = await cli('list', '--from', '2030-01-05', '--days', '1');
    expect(code).toBe(0);
    expect(out).toBe('2030-01-05:\nSat, 5 Jan 2030 19:00–21:00  Dinner (from friend@example.net)\n');
  });

  it('refuses a --from it cannot read, naming the forms that work', async () => {
    const { code, err } = await cli('list', '--from', 'the day after the party');
    expect(code).toBe(2);
    expect(err).toContain('Give an ISO time ("2026-12-24T18:00") or one-shots like "in 20 minutes"');
    expect(err).toMatch(/^familiar calendar: --from: "the day after the party" has words that are not part of a time/);
  });

  it('answers /today in a chat with the same agenda', async () => {
    const config = validateConfig({ timezone: ZONE, tools: { calendar: { accounts: [{ name: 'home', url: server.url, user: server.user, password: server.password }] } } });
    const made = createCalendarPart({ config, log: captureLogger([], []) });
    const reply = await made?.part.commands?.get('today')?.run({ channel: 'telegram', chatId: '1', userId: '1', args: '', conversationId: 'c' });
    expect(reply).toMatch(/Haircut @ Salon/);
  });

  it('answers /week with the next seven days, a daily series at its hour on both sides of the clock change', async () => {
    const config = validateConfig({ timezone: ZONE, tools: { calendar: { accounts: [{ name: 'home', url: server.url, user: server.user, password: server.password }] } } });
    const made = createCalendarPart({ config, log: captureLogger([], []), now: () => Date.parse('2030-03-28T10:00:00Z') });
    const reply = await made?.part.commands?.get('week')?.run({ channel: 'telegram', chatId: '1', userId: '1', args: '', conversationId: 'c' });
    // Paris moves its clocks on Sunday 31 March 2030; the run on the 30th is excluded.
    expect(reply).toBe([
      '2030-03-28 and the 6 days after:',
      ...['Thu, 28 Mar', 'Fri, 29 Mar', 'Sun, 31 Mar', 'Mon, 1 Apr', 'Tue, 2 Apr', 'Wed, 3 Apr'].map((day) => `${day} 2030 07:00–07:30  Morning run`),
    ].join('\n'));
  });

  it('has the doctor name the calendars found, and say what to fix for a wrong password', async () => {
    const good = validateConfig({ timezone: ZONE, tools: { calendar: { accounts: [{ name: 'home', url: server.url, user: server.user, password: server.password }] } } });
    const lines = await createCalendarPart({ config: good, log: captureLogger([], []) })?.part.doctor?.();
    expect(lines?.[0]).toMatchObject({ status: 'ok', label: `calendar: home at ${server.url}`, detail: expect.stringMatching(/^logged in; calendars Personal; 1 event resource\(s\) today$/) });
    const bad = validateConfig({ timezone: ZONE, tools: { calendar: { accounts: [{ name: 'home', url: server.url, user: server.user, password: 'wrong' }] } } });
    const failed = await createCalendarPart({ config: bad, log: captureLogger([], []) })?.part.doctor?.();
    expect(failed?.[0]).toMatchObject({ status: 'fail', fix: 'check tools.calendar.accounts[].user and password' });
  });

  it('writes tools.calendar with the password in .env, after finding the calendars', async () => {
    const dir = tempDir();
    const io = captureIo();
    const code = await runCli(['init', '--config', path.join(dir, 'config.yaml'), '--yes', '--no-sandbox', '--provider', 'custom', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'gpt-test', '--skip-llm-test',
      '--caldav-url', server.url, '--caldav-user', server.user, '--caldav-password', server.password], io);
    expect(code, io.out() + io.err()).toBe(0);
    expect(io.out()).toContain(`Calendar: found Personal at ${server.url}`);
    const config = readFileSync(path.join(dir, 'config.yaml'), 'utf8');
    expect(config).not.toContain(server.password);
    expect(readFileSync(path.join(dir, '.env'), 'utf8')).toContain(`CALDAV_PASSWORD=${server.password}`);
    const loaded = loadConfig({ configPath: path.join(dir, 'config.yaml') });
    expect(loaded.config.tools.calendar?.accounts).toEqual([expect.objectContaining({ name: 'home', url: server.url, user: server.user, password: server.password })]);
  });
});
