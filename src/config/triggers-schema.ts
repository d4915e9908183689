import { z } from 'zod/v3';
import { duration } from './duration.js';

/** Part of the configuration contract (schema.ts): inbound triggers and standing intents. */

const secret = () => z.string().default('');

/** One webhook route on http.listen (docs/triggers.md): POST /hooks/<name>/<token>. */
const webhookRouteSchema = () => z.strictObject({
  scheme: z.enum(['github', 'standard', 'hmac']),
  secret: secret(),
  token: secret(),
  header: z.string().min(1).default('x-signature'),
  id_header: z.string().min(1).default('x-webhook-id'),
  timestamp_header: z.string().min(1).optional(),
  replay_window: duration().default(300),
  per_minute: z.number().int().min(1).default(60),
});

/** Inbound triggers (docs/triggers.md): signed webhooks and new mail, written to the inbox before they are acknowledged. */
export const triggersSchema = () => z.strictObject({
  webhooks: z.record(z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'use letters, digits, - and _'), webhookRouteSchema()).default({}),
  mail: z.strictObject({ watch: z.boolean().default(false), folder: z.string().min(1).default('INBOX') }).default({}),
});

/** Standing intents (docs/heartbeat.md): "when X comes up, remind me of Y", made only by the person. */
export const intentsSchema = () => z.strictObject({
  cooldown: duration().default(86400),
  fires: z.number().int().min(1).default(3),
  expire_after: duration().default(90 * 86400),
});
