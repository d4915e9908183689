import { z } from 'zod/v3';

/** Part of the configuration contract (schema.ts): `channels.matrix`, a bot account on a Matrix homeserver. */

/** A Matrix user id: `@localpart:server` (the server part may carry a port). */
export const MATRIX_USER_ID = /^@[^:\s]+:[^\s]+$/;

const matrixUserId = () => z.string().regex(MATRIX_USER_ID, 'a Matrix user id such as @alice:example.org');

export const matrixSchema = () => z.strictObject({
  /** The client-server API base of the bot's homeserver (what Element shows as the homeserver). */
  homeserver_url: z.string().url(),
  /** The bot account; empty: the one the access token belongs to (`/account/whoami`). */
  user_id: z.string().regex(new RegExp(`${MATRIX_USER_ID.source}|^$`), 'a Matrix user id such as @familiar:example.org, or empty').default(''),
  access_token: z.string().default(''),
  /** The device the access token was issued for; empty: the one whoami reports. */
  device_id: z.string().default(''),
  allowed_users: z.array(matrixUserId()).default([]),
});
