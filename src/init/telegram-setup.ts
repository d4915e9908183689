import type { Api } from 'grammy';
import { errorMessage } from '../errors.js';
import type { Result } from '../lib/result.js';

export interface TelegramBot {
  api: Api;
  username: string;
}

export interface TelegramPerson {
  userId: string;
  name: string;
  username?: string;
}

/** A token check that failed: why, and whether the server itself did not answer (the address to fix, not the token). */
export type TokenCheck = { success: true; value: TelegramBot } | { success: false; error: string; unreachable?: boolean };

/** Checks a bot token with getMe. The error says what to do (a rejected token, an unreachable server). */
export async function checkTelegramToken(token: string, apiRoot: string): Promise<TokenCheck> {
  if (!/^\d+:[A-Za-z0-9_-]{10,}$/.test(token.trim())) {
    return { success: false, error: 'that does not look like a bot token (digits, a colon, then letters): copy it from @BotFather' };
  }
  const { Api, GrammyError } = await import('grammy');
  const api = new Api(token.trim(), { apiRoot: apiRoot.replace(/\/+$/, ''), timeoutSeconds: 15 });
  try {
    const me = await api.getMe();
    return { success: true, value: { api, username: me.username } };
  } catch (error) {
    if (error instanceof GrammyError && (error.error_code === 401 || error.error_code === 404)) {
      return { success: false, error: 'Telegram refused this token: copy it again from @BotFather (/mybots → API Token)' };
    }
    return { success: false, error: `cannot reach ${apiRoot} (${errorMessage(error)}): check the network and the Bot API server's address`, unreachable: true };
  }
}

/**
 * Waits for the first private message to the bot and returns who sent it; then marks every update read, so
 * the daemon does not answer this set-up message later. Resolves `undefined` when `signal` fires (the person
 * chose to skip) or after `timeoutMs`.
 */
export async function waitForFirstMessage(bot: TelegramBot, options: { signal: AbortSignal; timeoutMs: number }): Promise<Result<TelegramPerson | undefined>> {
  const until = Date.now() + options.timeoutMs;
  let offset: number | undefined;
  try {
    // A webhook makes getUpdates fail (409); the daemon polls too, so none is wanted.
    await bot.api.deleteWebhook();
    while (!options.signal.aborted && Date.now() < until) {
      const seconds = Math.max(1, Math.min(20, Math.round((until - Date.now()) / 1000)));
      const updates = await bot.api.getUpdates({ ...(offset !== undefined ? { offset } : {}), timeout: seconds, allowed_updates: ['message'] }, options.signal as unknown as Parameters<Api['getUpdates']>[1]);
      // (grammy types its signal with a shim; at run time it takes Node's own AbortSignal.)
      for (const update of updates) {
        offset = update.update_id + 1;
        const message = update.message;
        if (!message?.from || message.chat.type !== 'private' || message.from.is_bot) continue;
        await bot.api.getUpdates({ offset, timeout: 0 });
        const name = [message.from.first_name, message.from.last_name].filter(Boolean).join(' ');
        return { success: true, value: { userId: String(message.from.id), name, ...(message.from.username ? { username: message.from.username } : {}) } };
      }
    }
    if (offset !== undefined) await bot.api.getUpdates({ offset, timeout: 0 });
    return { success: true, value: undefined };
  } catch (error) {
    if (options.signal.aborted) return { success: true, value: undefined };
    return { success: false, error: `reading the bot's messages failed: ${errorMessage(error)}` };
  }
}

/** Tells the person in Telegram that the set-up knows them. Contract: never throws (a failed note is no harm). */
export async function greet(bot: TelegramBot, person: TelegramPerson): Promise<void> {
  try {
    await bot.api.sendMessage(person.userId, `Hello${person.name ? ` ${person.name}` : ''}! I know you now. I will answer here once Familiar runs (familiar start).`);
  } catch {
    // The greeting is a courtesy; the set-up goes on without it.
  }
}
