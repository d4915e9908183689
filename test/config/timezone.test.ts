import { describe, expect, it } from 'vitest';
import { isValidTimeZone, systemTimeZone } from '../../src/config/timezone.js';

describe('time zones', () => {
  it('accepts canonical zones, the names of UTC and other aliases ICU knows, and refuses the rest', () => {
    for (const zone of ['Europe/Paris', 'America/New_York', 'UTC', 'Etc/UTC', 'GMT', 'US/Eastern', 'Asia/Calcutta']) expect(isValidTimeZone(zone), zone).toBe(true);
    for (const zone of ['Europe/Pariss', 'Mars/Olympus', '', 'utc+2']) expect(isValidTimeZone(zone), zone).toBe(false);
  });

  it("takes the machine's zone from TZ when it names one, and leaves a POSIX rule to ICU", () => {
    expect(systemTimeZone({ TZ: 'Asia/Tokyo' })).toBe('Asia/Tokyo');
    expect(systemTimeZone({ TZ: ':Europe/Berlin' })).toBe('Europe/Berlin');
    expect(systemTimeZone({ TZ: 'America/Sao_Paulo' })).toBe('America/Sao_Paulo');
    // What ICU makes of the rule is ICU's business; the answer is still a zone ICU accepts.
    expect(isValidTimeZone(systemTimeZone({ TZ: 'CET-1CEST' }))).toBe(true);
  });

  it('without TZ, agrees with ICU about the zone of this machine', () => {
    const ours = systemTimeZone({});
    const icu = Intl.DateTimeFormat().resolvedOptions().timeZone;
    const offset = (zone: string) => new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' }).format(new Date(Date.UTC(2026, 0, 15)));
    expect(offset(ours)).toBe(offset(icu));
  });
});
