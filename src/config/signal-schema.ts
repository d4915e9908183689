import { z } from 'zod/v3';

/** Part of the configuration contract (schema.ts): `channels.signal`, Signal through a signal-cli daemon the person runs. */

/** A Signal number in E.164 form (+4915…) or an account's UUID (ACI). */
const signalId = () => z.union([z.string(), z.number()]).transform(String).pipe(
  z.string().regex(/^(?:\+[1-9]\d{5,17}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i, 'a number in international form (+4917…) or a Signal UUID'),
).transform((id) => id.toLowerCase()); // signal-cli writes UUIDs in lower case

export const signalSchema = () => z.strictObject({
  /** signal-cli's HTTP daemon (`signal-cli -a +NUMBER daemon --http 127.0.0.1:8080`). */
  url: z.string().url().default('http://127.0.0.1:8080'),
  /** The number signal-cli is registered or linked with: the bot's own account. Empty: Signal is off. */
  account: z.string().regex(/^(?:\+[1-9]\d{5,17})?$/, 'the account\'s number in international form (+4915…)').default(''),
  /** Who may talk to it: numbers (+4917…) or UUIDs. */
  allowed_users: z.array(signalId()).default([]),
});
