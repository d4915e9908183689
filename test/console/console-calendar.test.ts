import { afterAll, beforeAll, expect, it } from 'vitest';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { describeCaldav, startRadicale, type CaldavServer } from '../helpers/caldav-server.js';
import { startConsoleApp, type ConsoleApp } from '../helpers/console.js';
import { ics, putEvent } from '../tools/calendar/fixtures.js';

describeCaldav('the console\'s week view', () => {
  let server: CaldavServer;
  let fake: FakeOpenAI;
  let app: ConsoleApp;
  beforeAll(async () => {
    [server, fake] = await Promise.all([startRadicale(), startOpenAiServer()]);
    await putEvent(server, 'weekly', ics('BEGIN:VEVENT', 'UID:yoga', 'DTSTAMP:20260901T000000Z', 'SUMMARY:Yoga', 'DTSTART;TZID=Europe/Paris:20301007T073000', 'DTEND;TZID=Europe/Paris:20301007T083000', 'RRULE:FREQ=WEEKLY', 'END:VEVENT'));
    await putEvent(server, 'invite', ics('BEGIN:VEVENT', 'UID:invite', 'DTSTAMP:20260901T000000Z', 'SUMMARY:<img src=x onerror=alert(1)>Offsite', 'DTSTART:20301009T120000Z', 'DTEND:20301009T130000Z', 'ORGANIZER:mailto:someone@example.net', 'END:VEVENT'));
    app = await startConsoleApp(fake, { tools: { calendar: { accounts: [{ url: server.url, user: server.user, password: server.password, addresses: ['me@example.org'] }] } } });
  });
  afterAll(async () => {
    await app.app.close(0);
    await Promise.all([fake.close(), server.close()]);
  });

  it('shows seven days from the day asked, a series in each week, and who sent an invitation, escaped', async () => {
    const client = await app.login();
    const page = await (await client.get('/console/calendar?from=2030-10-07')).text();
    expect(page).toContain('The week from 2030-10-07 (Europe/Paris)');
    expect(page).toMatch(/<th>Mon 7 Oct<\/th>.*<th>Sun 13 Oct<\/th>/s);
    expect(page).toContain('<strong>07:30–08:30</strong> Yoga');
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;Offsite');
    expect(page).toContain('(from someone@example.net)');
    expect(page).not.toContain('<img src=x');
    const next = await (await client.get('/console/calendar?from=2030-10-14')).text();
    expect(next).toContain('<strong>07:30–08:30</strong> Yoga');
  });
});
