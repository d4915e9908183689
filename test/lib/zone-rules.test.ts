import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ZonedClock } from '../../src/lib/clock.js';
import { zoneOffsetMs } from '../../src/lib/zoned.js';
import { parsePosixRule, zoneOffsetsFromDatabase } from '../../src/lib/zone-rules.js';
import { tempDir } from '../helpers/app.js';

const ZONES = ['Europe/Paris', 'America/New_York', 'Australia/Sydney', 'America/Santiago', 'Asia/Kolkata', 'Asia/Kathmandu', 'Australia/Lord_Howe', 'Europe/Dublin', 'Pacific/Chatham', 'UTC', 'America/St_Johns'];

/** Instants every 5 days and 7 hours from 1990 to 2060: past the database's table (2037), its footer rule decides. */
function instants(): number[] {
  const list: number[] = [];
  for (let at = Date.UTC(1990, 0, 1); at < Date.UTC(2060, 0, 1); at += (5 * 24 + 7) * 3_600_000) list.push(at);
  return list;
}

describe('zone offsets from the system time zone database', () => {
  it.each(ZONES)('agree with ICU for %s from 1990 to 2060', (zone) => {
    const offsets = zoneOffsetsFromDatabase(zone);
    expect(offsets).toBeDefined();
    const wrong = instants().filter((at) => offsets?.(at) !== zoneOffsetMs(at, zone)).map((at) => new Date(at).toISOString());
    expect(wrong).toEqual([]);
  });

  it('agree with ICU around the hour the clocks change, on both sides', () => {
    const offsets = zoneOffsetsFromDatabase('Europe/Paris');
    // 2026-03-29 01:00 UTC: Paris goes from UTC+1 to UTC+2; 2041-10-27 01:00 UTC back (the footer's rule).
    for (const change of [Date.UTC(2026, 2, 29, 1), Date.UTC(2041, 9, 27, 1)]) {
      expect([offsets?.(change - 1000), offsets?.(change)]).toEqual([zoneOffsetMs(change - 1000, 'Europe/Paris'), zoneOffsetMs(change, 'Europe/Paris')]);
    }
  });

  it('read a "slim" file, whose footer rule carries everything after its last transition', () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, 'out'));
    // Europe/Paris's rules since 1996, written as the zone's whole history.
    writeFileSync(path.join(dir, 'zone.txt'), 'Rule EU 1996 max - Mar lastSun 1:00u 1:00 S\nRule EU 1996 max - Oct lastSun 1:00u 0 -\nZone Test/Paris 1:00 EU CE%sT\n');
    execFileSync('zic', ['-b', 'slim', '-d', path.join(dir, 'out'), path.join(dir, 'zone.txt')]);
    const offsets = zoneOffsetsFromDatabase('Test/Paris', path.join(dir, 'out'));
    const wrong = instants().filter((at) => at >= Date.UTC(1997, 0, 1) && offsets?.(at) !== zoneOffsetMs(at, 'Europe/Paris')).map((at) => new Date(at).toISOString());
    expect(wrong).toEqual([]);
  });

  it('is undefined for a zone the database does not have, or a name that is not a zone path', () => {
    expect(zoneOffsetsFromDatabase('Mars/Olympus_Mons')).toBeUndefined();
    expect(zoneOffsetsFromDatabase('../../etc/passwd')).toBeUndefined();
  });

  it('refuses a footer rule with summer time but no dates, so ICU answers instead', () => {
    expect(parsePosixRule('EST5EDT')).toBeUndefined();
    expect(parsePosixRule('<+0530>-5:30')?.(0)).toBe(19_800_000);
  });
});

describe('the zoned clock', () => {
  it('writes the prompt date line and the short form in the zone, as ICU did', () => {
    const clock = new ZonedClock('Europe/Paris');
    const at = new Date(Date.UTC(2026, 10, 22, 4, 10, 30));
    expect(clock.describe(at)).toBe('Sunday, 22 November 2026 at 05:10 (Europe/Paris, UTC+01:00)');
    expect(clock.format(at)).toBe('2026-11-22 05:10');
    expect(new ZonedClock('America/St_Johns').offsetOf(at)).toBe('UTC-03:30');
    expect(new ZonedClock('UTC').offsetOf(at)).toBe('UTC+00:00');
  });
});
