import { z } from 'zod/v3';

/** Part of the configuration contract (schema.ts): `channels.slack`, a Slack app over Socket Mode. */

const secret = () => z.string().default('');

export const slackSchema = () => z.strictObject({
  /** The app-level token (`xapp-…`, scope connections:write): opens the Socket Mode connection. */
  app_token: secret(),
  /** The bot token (`xoxb-…`): every Web API call (messages, files, buttons). */
  bot_token: secret(),
  /** The Web API base; `apps.connections.open` there gives the WebSocket address. */
  api_url: z.string().url().default('https://slack.com/api/'),
  allowed_users: z.array(z.string().regex(/^[UW][A-Z0-9]{2,}$/, 'a Slack member id (U… or W…: profile → ⋮ → Copy member ID)')).default([]),
});
