import { z } from 'zod/v3';

/** Part of the configuration contract (schema.ts): `tools.calendar`, the person's CalDAV calendars and ICS feeds. */

const secret = () => z.string().default('');

export const calendarSchema = () => z
  .strictObject({
    accounts: z
      .array(
        z.strictObject({
          /** How the account is named in results and `calendar` arguments. */
          name: z.string().regex(/^[\w.-]{1,40}$/, 'letters, digits, dot, dash or underscore').default('calendar'),
          url: z.string().url(),
          user: z.string().default(''),
          password: secret(),
          /** Calendars to use, by display name or URL; empty: every calendar the account has. */
          calendars: z.array(z.string().min(1)).default([]),
          /** Where new events go (display name or URL); default: the first calendar used. */
          default: z.string().optional(),
          /** The person's own addresses on this account (organizer, attendee); default: `user` when it is one. */
          addresses: z.array(z.string().email()).default([]),
        }),
      )
      .default([]),
    subscriptions: z
      .array(z.strictObject({ name: z.string().regex(/^[\w.-]{1,40}$/, 'letters, digits, dot, dash or underscore'), url: z.string().regex(/^(https?|webcal):\/\//i, 'an http(s):// or webcal:// address') }))
      .default([]),
    timeout_s: z.number().positive().default(20),
    /** How far ahead VALARM alarms become reminders, in days. */
    alarm_days: z.number().int().min(0).max(60).default(7),
  });
