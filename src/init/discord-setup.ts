import { errorMessage } from '../errors.js';
import type { Result } from '../lib/result.js';

export interface DiscordBot {
  id: string;
  username: string;
  /** Where the person adds the bot to a server (or opens a DM through a shared server). */
  inviteUrl: string;
}

/** View Channels, Send Messages, Read Message History: what a chat bot needs. */
const PERMISSIONS = 1024 + 2048 + 65536;

/** Checks a bot token with GET /users/@me (plain fetch: discord.js is not needed for one request). */
export async function checkDiscordToken(token: string, apiUrl: string, fetchImpl: typeof fetch = fetch): Promise<Result<DiscordBot>> {
  const base = apiUrl.replace(/\/+$/, '');
  let response: Response;
  try {
    response = await fetchImpl(`${base}/v10/users/@me`, { headers: { authorization: `Bot ${token.trim()}` }, signal: AbortSignal.timeout(15_000) });
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    return { success: false, error: `cannot reach ${base} (${errorMessage(cause)}): check the network` };
  }
  if (response.status === 401) return { success: false, error: 'Discord refused this token: copy it again (Developer Portal → your application → Bot → Reset Token)' };
  if (!response.ok) return { success: false, error: `Discord answered ${response.status}; try again, or check channels.discord.api_url` };
  const me = (await response.json()) as { id?: unknown; username?: unknown };
  if (typeof me.id !== 'string') return { success: false, error: 'Discord\'s answer had no bot id' };
  return {
    success: true,
    value: {
      id: me.id,
      username: typeof me.username === 'string' ? me.username : me.id,
      inviteUrl: `https://discord.com/oauth2/authorize?client_id=${me.id}&scope=bot&permissions=${PERMISSIONS}`,
    },
  };
}
