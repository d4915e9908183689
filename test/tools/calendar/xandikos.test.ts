import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeCaldav, python, startXandikos, type CaldavServer } from '../../helpers/caldav-server.js';
import { calendarTool, putEvent, WEEKLY } from './fixtures.js';

/** python3-caldav, a second client: changes the title of the event with this UID. */
const RETITLE = String.raw`
import json, sys, caldav
args = json.loads(sys.argv[1])
client = caldav.DAVClient(url=args['url'], username=args['user'] or None, password=args['password'] or None)
calendar = client.calendar(url=args['calendar'])
event = calendar.event_by_uid(args['uid'])
event.vobject_instance.vevent.summary.value = args['summary']
event.save()
print(json.dumps('ok'))
`;

describeCaldav('calendar on xandikos', () => {
  let server: CaldavServer;
  beforeAll(async () => {
    server = await startXandikos();
  });
  afterAll(async () => server.close());

  it('creates, sees another client\'s change, and expands a series there too', async () => {
    const { call } = calendarTool(server);
    await putEvent(server, 'weekly', WEEKLY);
    const made = await call({ action: 'create', summary: 'Standup', start: '2026-10-06T09:15', end: '2026-10-06T09:30' });
    const uid = /uid=([\w-]+)/.exec(made.output)?.[1] ?? '';
    await python(RETITLE, { url: server.url, user: '', password: '', calendar: server.calendarUrl, uid, summary: 'Standup (moved room)' });
    const listed = await call({ action: 'list', from: '2026-10-05', days: 7 });
    expect(listed.output).toContain('Tue, 6 Oct 2026 09:15–09:30 Standup (moved room)');
    expect(listed.output).toContain('Mon, 5 Oct 2026 09:00–09:30 Weekly sync');
  });
});
