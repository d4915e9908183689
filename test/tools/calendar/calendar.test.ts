import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeCaldav, oracleOccurrences, startRadicale, type CaldavServer } from '../../helpers/caldav-server.js';
import { BUSY_DAY, calendarTool, HOLIDAY, LAST_FRIDAY, putEvent, WEEKLY } from './fixtures.js';

const RANGE = { from: Date.parse('2026-10-01T00:00:00Z'), to: Date.parse('2027-01-01T00:00:00Z') };
const utc = (instant: number): string => new Date(instant).toISOString().replace('.000Z', 'Z');

describeCaldav('calendar on radicale: recurrences expanded on the client', () => {
  let server: CaldavServer;
  let oracle: Map<string, string[]>;
  beforeAll(async () => {
    const window = { start: '2026-10-01T00:00:00Z', end: '2027-01-01T00:00:00Z' };
    const [started, expected] = await Promise.all([
      startRadicale(),
      oracleOccurrences([WEEKLY, HOLIDAY, LAST_FRIDAY].map((ics) => ({ ics, ...window }))),
    ]);
    server = started;
    oracle = new Map(['weekly-sync', 'holiday', 'last-friday'].map((uid, index) => [uid, expected[index] ?? []]));
    await Promise.all([
      putEvent(server, 'weekly', WEEKLY), putEvent(server, 'holiday', HOLIDAY), putEvent(server, 'last-friday', LAST_FRIDAY),
      ...BUSY_DAY.map(async (event, index) => putEvent(server, `busy-${index}`, event)),
    ]);
  });
  afterAll(async () => server.close());

  async function startsOf(uid: string): Promise<string[]> {
    const { calendars } = calendarTool(server);
    const { occurrences, problems } = await calendars.occurrences(RANGE);
    expect(problems).toEqual([]);
    return occurrences.filter((occurrence) => occurrence.uid === uid).map((occurrence) => (occurrence.allDay ? occurrence.days?.first ?? '' : utc(occurrence.start))).sort();
  }

  it('expands a weekly Berlin series across the October change with its EXDATE and moved occurrence as dateutil does', async () => {
    const expected = oracle.get('weekly-sync');
    const got = await startsOf('weekly-sync');
    expect(got).toEqual(expected);
    // 09:00 in Berlin is 07:00 UTC before the change and 08:00 after it; 19 October is excluded; 2 November moved.
    expect(got.slice(0, 3)).toEqual(['2026-10-05T07:00:00Z', '2026-10-12T07:00:00Z', '2026-10-26T08:00:00Z']);
    expect(got).toContain('2026-11-02T13:00:00Z');
  });

  it('keeps an all-day event on its days, whatever the person\'s zone', async () => {
    expect(await startsOf('holiday')).toEqual(oracle.get('holiday'));
    const { call } = calendarTool(server);
    const listed = await call({ action: 'list', from: '2026-12-25', days: 1 });
    expect(listed.output).toContain('2026-12-25 to 2026-12-26 (all day) Christmas');
  });

  it('finds the last Friday of each month in New York as dateutil does', async () => {
    const expected = oracle.get('last-friday');
    expect(expected).toEqual(['2026-10-30T21:00:00Z', '2026-11-27T22:00:00Z', '2026-12-25T22:00:00Z']);
    expect(await startsOf('last-friday')).toEqual(expected);
  });

  it('lists and searches through the tool on the person\'s clock with the handles a change needs', async () => {
    const { call } = calendarTool(server);
    const listed = await call({ action: 'list', from: '2026-10-26', days: 1 });
    expect(listed.success).toBe(true);
    expect(listed.output).toMatch(/Mon, 26 Oct 2026 09:00–09:30 Weekly sync\n {2}\[uid=weekly-sync occurrence=2026-10-26T08:00:00.000Z version="[^"]+" calendar=home\/Personal\]/);
    const found = await call({ action: 'search', text: 'moved', from: '2026-10-01', days: 90 });
    expect(found.output).toContain('1 event(s)');
    expect(found.output).toContain('Mon, 2 Nov 2026 14:00–14:30 Weekly sync (moved)');
  });

  // One free_busy read of Tue 17 and Wed 18 November, shared by the three checks below.
  let twoDays: Promise<string> | undefined;
  const freeBusy = async (): Promise<string> => {
    twoDays ??= calendarTool(server).call({ action: 'free_busy', from: '2026-11-17', days: 2 }).then((result) => (result.success ? result.output : `failed: ${result.output}`));
    return twoDays;
  };

  it('merges a day\'s busy time from an occurrence of a series and an overlapping pair', async () => {
    const output = await freeBusy();
    expect(output.split('\n').slice(0, 2)).toEqual(['busy Tue 17 Nov 09:30–09:45', 'busy Tue 17 Nov 11:00–13:00']);
    expect(output).toContain('\nfree Tue 17 Nov 09:00–09:30, 09:45–11:00, 13:00–18:00\n');
  });

  it('counts an all-day event as busy the whole day', async () => {
    const output = await freeBusy();
    expect(output).toContain('\nbusy Wed 18 Nov 00:00–Thu 19 Nov 00:00\n');
    expect(output).toContain('\nWed 18 Nov: no free time between 9:00 and 18:00');
  });

  it('leaves events marked free, cancelled or declined, and an all-day birthday marked free, out of the busy time', async () => {
    const output = await freeBusy();
    expect(output.match(/^busy /gm)).toHaveLength(3);
    expect(output).not.toMatch(/14:00|15:00|15:30|16:00|17:00/);
  });
});
