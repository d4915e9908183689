import ICAL from 'ical.js';
import { requireOnUse } from '../../lib/folded.js';

type TzLib = { tzlib_get_ical_block(name: string): string[] | string };
let tzlib: TzLib | undefined;

/**
 * Makes every time zone a calendar text names known to ical.js: its own VTIMEZONE blocks first (the server's or the
 * writer's rules), then, for a TZID without a block (common from some clients), the IANA rules from
 * timezones-ical-library. A TZID neither knows stays floating and is read on the person's clock.
 */
export function registerZones(calendar: ICAL.Component, text: string): void {
  for (const block of calendar.getAllSubcomponents('vtimezone')) {
    const tzid = block.getFirstPropertyValue('tzid');
    if (typeof tzid === 'string' && !ICAL.TimezoneService.has(tzid)) ICAL.TimezoneService.register(block);
  }
  for (const match of text.matchAll(/;TZID=("?)([^;:"\r\n]+)\1/g)) {
    const tzid = match[2];
    if (tzid !== undefined && !ICAL.TimezoneService.has(tzid)) {
      const block = vtimezoneFor(tzid);
      if (block) ICAL.TimezoneService.register(block);
    }
  }
}

/** The VTIMEZONE of an IANA zone, or undefined when the library does not know it. */
export function vtimezoneFor(tzid: string): ICAL.Component | undefined {
  tzlib ??= requireOnUse<TzLib>('timezones-ical-library');
  const found = tzlib.tzlib_get_ical_block(tzid);
  const block = Array.isArray(found) ? found[0] : undefined;
  if (block === undefined || !block.startsWith('BEGIN:VTIMEZONE')) return undefined;
  return new ICAL.Component(ICAL.parse(block) as unknown[]);
}
