/**
 * Date formatting in the configured zone. Formatters are built once per zone, on first use: building an
 * Intl.DateTimeFormat per turn is slow and was a peer daemon's memory leak, and the first one loads ICU's
 * formatting data (about 8 MB), which a daemon that has not answered anything yet does not need.
 */
export class ZonedClock {
  readonly timeZone: string;
  private formatters: { long: Intl.DateTimeFormat; offset: Intl.DateTimeFormat; short: Intl.DateTimeFormat } | undefined;
  /** The last description and its minute: the text changes once a minute, turns come far more often. */
  private described: { minute: number; text: string } | undefined;

  constructor(timeZone: string) {
    this.timeZone = timeZone;
  }

  private get formats() {
    const timeZone = this.timeZone;
    this.formatters ??= {
      long: new Intl.DateTimeFormat('en-GB', {
        timeZone, weekday: 'long', year: 'numeric', month: 'long', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23',
      }),
      offset: new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' }),
      short: new Intl.DateTimeFormat('sv-SE', {
        timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23',
      }),
    };
    return this.formatters;
  }

  /** "Sunday 22 November 2026 at 05:10 (Europe/Paris, UTC+01:00)". */
  describe(date: Date): string {
    const minute = Math.floor(date.getTime() / 60_000);
    if (this.described?.minute === minute) return this.described.text;
    const text = `${this.formats.long.format(date)} (${this.timeZone}, ${this.offsetOf(date)})`;
    this.described = { minute, text };
    return text;
  }

  /** "2026-11-22 05:10" in the zone. */
  format(date: Date): string {
    return this.formats.short.format(date);
  }

  offsetOf(date: Date): string {
    const name = this.formats.offset.formatToParts(date).find((part) => part.type === 'timeZoneName')?.value ?? 'GMT';
    return name === 'GMT' ? 'UTC+00:00' : name.replace('GMT', 'UTC');
  }
}
