// Real CalDAV servers for the calendar tests: Debian's radicale (htpasswd auth, a temporary folder, the calendar made
// with MKCALENDAR, since radicale has no default one) or xandikos (git-backed, no auth of its own), each a private
// process on a free loopback port. One server per test file, shared by its tests. `describeCaldav` skips without
// them (the set-up printed one line) — except with CI=true, where the suite fails. Set-up: `npm test` does it
// (test/setup/global-setup.ts runs scripts/setup-caldav.sh). Also: the independent recurrence oracle (python3-dateutil
// and python3-icalendar) and python3-caldav as a second client.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, inject, it } from 'vitest';
import { caldavStatus } from '../setup/parts.js';
import { freePort } from './rig.js';

const status = caldavStatus();
const inCI = process.env.CI === 'true';
let warned = false;
const run = promisify(execFile);

export function describeCaldav(name: string, fn: () => void): void {
  if (!status.ready && inCI) {
    const reason = status.reason ?? 'no CalDAV server';
    describe(name, () => {
      it('needs radicale and xandikos', () => {
        throw new Error(`CalDAV servers are required in CI but unavailable: ${reason}`);
      });
    });
    return;
  }
  if (!status.ready && !warned && inject('familiarSetupSkipped').length === 0) {
    warned = true;
    console.warn(`[calendar tests skipped] ${status.reason ?? ''}`);
  }
  describe.skipIf(!status.ready)(name, fn);
}

export interface CaldavServer {
  kind: 'radicale' | 'xandikos';
  /** The server's root, for discovery (`http://127.0.0.1:PORT/`). */
  url: string;
  /** The calendar collection the server started with (ends with `/`). */
  calendarUrl: string;
  user: string;
  password: string;
  close(): Promise<void>;
}

const USER = 'person';
const PASSWORD = 'calendar-secret';

/** Radicale with htpasswd (plain) auth in a temporary folder, and one calendar made with MKCALENDAR. */
export async function startRadicale(): Promise<CaldavServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'familiar-radicale-'));
  const port = await freePort();
  writeFileSync(path.join(dir, 'users'), `${USER}:${PASSWORD}\n`);
  writeFileSync(path.join(dir, 'config'), [
    '[server]', `hosts = 127.0.0.1:${port}`,
    '[auth]', 'type = htpasswd', `htpasswd_filename = ${path.join(dir, 'users')}`, 'htpasswd_encryption = plain', 'delay = 0',
    '[storage]', `filesystem_folder = ${path.join(dir, 'collections')}`,
    '[rights]', 'type = owner_only',
    '[logging]', 'level = warning', 'mask_passwords = True',
    '',
  ].join('\n'));
  const child = spawn('/usr/bin/radicale', ['--config', path.join(dir, 'config')], { stdio: ['ignore', 'ignore', 'pipe'] });
  const url = `http://127.0.0.1:${port}/`;
  const calendarUrl = `${url}${USER}/calendar/`;
  await waitForServer(child, url, { authorization: basic(USER, PASSWORD) });
  const made = await fetch(calendarUrl, {
    method: 'MKCALENDAR',
    headers: { authorization: basic(USER, PASSWORD), 'content-type': 'application/xml' },
    body: '<?xml version="1.0"?><C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:set><D:prop><D:displayname>Personal</D:displayname></D:prop></D:set></C:mkcalendar>',
  });
  if (made.status !== 201) throw new Error(`MKCALENDAR answered ${made.status}`);
  return { kind: 'radicale', url, calendarUrl, user: USER, password: PASSWORD, close: () => stop(child, dir) };
}

/** Xandikos with its default calendar (`/user/calendars/calendar/`); it has no auth of its own. */
export async function startXandikos(): Promise<CaldavServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'familiar-xandikos-'));
  const port = await freePort();
  const child = spawn('/usr/bin/xandikos', ['-d', dir, '-l', '127.0.0.1', '-p', String(port), '--defaults'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const url = `http://127.0.0.1:${port}/`;
  await waitForServer(child, url, {});
  return { kind: 'xandikos', url, calendarUrl: `${url}user/calendars/calendar/`, user: USER, password: PASSWORD, close: () => stop(child, dir) };
}

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

async function waitForServer(child: ChildProcess, url: string, headers: Record<string, string>): Promise<void> {
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  for (let attempt = 0; attempt < 200; attempt += 1) {
    if (child.exitCode !== null) throw new Error(`the CalDAV server exited (${child.exitCode}): ${stderr}`);
    try {
      await fetch(url, { method: 'OPTIONS', headers });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
  child.kill('SIGKILL');
  throw new Error(`the CalDAV server did not answer at ${url}: ${stderr}`);
}

async function stop(child: ChildProcess, dir: string): Promise<void> {
  if (child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
}

/** Runs a python3 script with a JSON argument and returns its JSON answer (the oracle and the second client). */
export async function python<T>(script: string, input: unknown): Promise<T> {
  const { stdout } = await run('/usr/bin/python3', ['-c', script, JSON.stringify(input)], { timeout: 20_000 });
  return JSON.parse(stdout) as T;
}

/**
 * The independent oracle: the start of every occurrence of the first VEVENT series in `ics` that begins in
 * [start, end), as UTC ISO strings, computed by python3-icalendar (parsing, TZID) and python3-dateutil's rruleset
 * (RRULE, EXDATE), with RECURRENCE-ID overrides moved. All-day dates come back as `YYYY-MM-DD`.
 */
export function oracleOccurrences(series: ReadonlyArray<{ ics: string; start: string; end: string }>): Promise<string[][]> {
  // One python process for all of them: starting python3 and importing icalendar is most of the cost.
  return python<string[][]>(ORACLE, series);
}

const ORACLE = String.raw`
import json, sys, datetime
from dateutil import rrule, tz
import icalendar
def occurrences(args):
  cal = icalendar.Calendar.from_ical(args['ics'])
  start = datetime.datetime.fromisoformat(args['start'].replace('Z', '+00:00'))
  end = datetime.datetime.fromisoformat(args['end'].replace('Z', '+00:00'))
  events = [c for c in cal.walk('VEVENT')]
  master = [e for e in events if e.get('RECURRENCE-ID') is None][0]
  overrides = [e for e in events if e.get('RECURRENCE-ID') is not None]
  dtstart = master.decoded('DTSTART')
  all_day = not isinstance(dtstart, datetime.datetime)
  def norm(value):
      if isinstance(value, datetime.datetime):
          return value.astimezone(datetime.timezone.utc)
      return value
  def key(value):
      return value.isoformat() if not isinstance(value, datetime.datetime) else norm(value).strftime('%Y-%m-%dT%H:%M:%SZ')
  if all_day:
      base = datetime.datetime.combine(dtstart, datetime.time())
  else:
      zone = tz.gettz(str(master['DTSTART'].params.get('TZID'))) if master['DTSTART'].params.get('TZID') else dtstart.tzinfo
      base = dtstart.replace(tzinfo=None)
  rules = rrule.rruleset()
  if master.get('RRULE'):
      rules.rrule(rrule.rrulestr(master['RRULE'].to_ical().decode(), dtstart=base))
  else:
      rules.rdate(base)
  exdates = master.get('EXDATE')
  if exdates is not None:
      for group in (exdates if isinstance(exdates, list) else [exdates]):
          for item in group.dts:
              value = item.dt
              if isinstance(value, datetime.datetime):
                  value = value.astimezone(zone).replace(tzinfo=None) if value.tzinfo else value
              else:
                  value = datetime.datetime.combine(value, datetime.time())
              rules.exdate(value)
  moved = {}
  for o in overrides:
      rid = o.decoded('RECURRENCE-ID')
      moved[key(rid if not isinstance(rid, datetime.datetime) else rid)] = o.decoded('DTSTART')
  out = []
  limit = datetime.datetime(2100, 1, 1)
  for local in rules:
      if local > limit:
          break
      if all_day:
          value = local.date()
      else:
          value = local.replace(tzinfo=zone)
      k = key(value)
      if k in moved:
          value = moved[k]
      if all_day:
          day = value if not isinstance(value, datetime.datetime) else value.date()
          if start.date() <= day < end.date():
              out.append(day.isoformat())
          if day >= end.date():
              break
      else:
          utc = norm(value)
          if start <= utc < end:
              out.append(key(value))
          if norm(local.replace(tzinfo=zone)) >= end + datetime.timedelta(days=31):
              break
  return sorted(out)
print(json.dumps([occurrences(args) for args in json.loads(sys.argv[1])]))
`;
