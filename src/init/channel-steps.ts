import { checkDiscordToken } from './discord-setup.js';
import type { SetupFlags } from './flags.js';
import { SetupFailed } from './llm-step.js';
import { checkTelegramToken, greet, waitForFirstMessage, type TelegramBot } from './telegram-setup.js';
import type { SetupUi } from './ui.js';

export interface ChannelChoice {
  token: string;
  root: string;
  allowedUsers: string[];
}

export interface ExistingChannel {
  token?: string;
  root?: string;
  allowedUsers: string[];
}

const TELEGRAM_ROOT = 'https://api.telegram.org';
const DISCORD_URL = 'https://discord.com/api';

/**
 * Telegram: the token checked with getMe, then the person's user id learnt from their first message to the bot
 * (so nobody copies ids around); `undefined` when the person does not want Telegram.
 */
export async function chooseTelegram(ui: SetupUi, flags: SetupFlags, existing: ExistingChannel | undefined): Promise<ChannelChoice | undefined> {
  const wanted = flags.telegram ?? (ui.interactive ? await ui.confirm({ message: 'Talk to it on Telegram?', initialValue: true }) : existing?.token !== undefined);
  if (!wanted) return undefined;
  let root = flags.telegramApiRoot?.replace(/\/+$/, '') ?? (await chooseTelegramRoot(ui, existing?.root ?? TELEGRAM_ROOT));
  let token = flags.telegramToken ?? (await keepOrAsk(ui, 'TELEGRAM_BOT_TOKEN', existing?.token, 'Telegram bot token (in Telegram, message @BotFather: /newbot, then copy the token)'));
  let bot: TelegramBot;
  for (;;) {
    const checked = await ui.progress(`Checking the token with ${root === TELEGRAM_ROOT ? 'Telegram' : root} (getMe)`, () => checkTelegramToken(token, root));
    if (checked.success) {
      bot = checked.value;
      break;
    }
    if (!ui.interactive) throw new SetupFailed(`Telegram: ${checked.error}`);
    ui.error(checked.error);
    // A server that does not answer is the address to fix, not the token.
    if (checked.unreachable) root = await chooseTelegramRoot(ui, root, true);
    else token = await ui.password({ message: 'Telegram bot token', validate: (value) => (value.trim() === '' ? 'paste the token from @BotFather' : undefined) });
  }
  ui.success(`Telegram bot: @${bot.username}`);
  if (flags.telegramUser.length > 0) return { token: token.trim(), root, allowedUsers: flags.telegramUser };
  if (!ui.interactive) {
    if (existing && existing.allowedUsers.length > 0) return { token: token.trim(), root, allowedUsers: existing.allowedUsers };
    ui.warn(`No --telegram-user: nobody is allowed yet. Message @${bot.username}, then approve the code it sends: familiar pairing approve CODE`);
    return { token: token.trim(), root, allowedUsers: [] };
  }
  if (existing && existing.allowedUsers.length > 0) {
    const keep = await ui.confirm({ message: `Keep the allowed Telegram users (${existing.allowedUsers.join(', ')})?`, initialValue: true });
    if (keep) return { token: token.trim(), root, allowedUsers: existing.allowedUsers };
  }
  return { token: token.trim(), root, allowedUsers: await learnTelegramUser(ui, flags, bot) };
}

/** Telegram's own Bot API server, or the person's (a self-hosted telegram-bot-api, for large files or a local mirror). */
async function chooseTelegramRoot(ui: SetupUi, current: string, again = false): Promise<string> {
  if (!ui.interactive) return current.replace(/\/+$/, '');
  const own = again || current.replace(/\/+$/, '') !== TELEGRAM_ROOT
    ? true
    : await ui.select({
      message: 'Which Bot API server?',
      options: [
        { value: false, label: "Telegram's own", hint: TELEGRAM_ROOT },
        { value: true, label: 'A self-hosted Bot API server', hint: 'telegram-bot-api, e.g. http://127.0.0.1:8081' },
      ],
      initialValue: false,
    });
  if (!own) return TELEGRAM_ROOT;
  const answer = await ui.text({
    message: 'The Bot API server\'s address (its root, without /bot…)',
    initialValue: current === TELEGRAM_ROOT ? 'http://127.0.0.1:8081' : current,
    validate: (value) => (/^https?:\/\/[^\s/]+/.test(value.trim()) ? undefined : 'an http:// or https:// address'),
  });
  return answer.trim().replace(/\/+$/, '');
}

async function learnTelegramUser(ui: SetupUi, flags: SetupFlags, bot: TelegramBot): Promise<string[]> {
  const minutes = Math.round(flags.telegramWaitS / 60);
  ui.info(`Now send any message to @${bot.username} in Telegram, so I learn your user id (waiting up to ${minutes > 0 ? `${minutes} min` : `${flags.telegramWaitS} s`}; Ctrl-C to skip and use pairing later).`);
  const controller = new AbortController();
  const skip = (): void => controller.abort();
  process.once('SIGINT', skip);
  try {
    const waited = await waitForFirstMessage(bot, { signal: controller.signal, timeoutMs: flags.telegramWaitS * 1000 });
    if (!waited.success) {
      ui.warn(`${waited.error}. Message the bot later and approve the code it sends: familiar pairing approve CODE`);
      return [];
    }
    const person = waited.value;
    if (!person) {
      ui.warn(`No message came. Message @${bot.username} later and approve the code it sends: familiar pairing approve CODE`);
      return [];
    }
    const who = `${person.name || 'someone'}${person.username ? ` (@${person.username})` : ''}, user id ${person.userId}`;
    const mine = await ui.confirm({ message: `A message from ${who}. Is that you?`, initialValue: true });
    if (!mine) {
      ui.warn('Not allowed. Message the bot yourself later and approve the code it sends: familiar pairing approve CODE');
      return [];
    }
    await greet(bot, person);
    ui.success(`Telegram: only ${person.userId} may talk to it (channels.telegram.allowed_users).`);
    return [person.userId];
  } finally {
    process.removeListener('SIGINT', skip);
  }
}

/** Discord: the token checked, the invite link shown, the person's id asked (or left to pairing). */
export async function chooseDiscord(ui: SetupUi, flags: SetupFlags, existing: ExistingChannel | undefined): Promise<ChannelChoice | undefined> {
  const wanted = flags.discord ?? (ui.interactive ? await ui.confirm({ message: 'Talk to it on Discord?', initialValue: existing?.token !== undefined }) : existing?.token !== undefined);
  if (!wanted) return undefined;
  const root = (flags.discordApiUrl ?? existing?.root ?? DISCORD_URL).replace(/\/+$/, '');
  let token = flags.discordToken ?? (await keepOrAsk(ui, 'DISCORD_BOT_TOKEN', existing?.token, 'Discord bot token (Developer Portal → your application → Bot → Reset Token)'));
  for (;;) {
    const checked = await ui.progress('Checking the token with Discord', () => checkDiscordToken(token, root));
    if (checked.success) {
      ui.success(`Discord bot: ${checked.value.username}`);
      ui.note(`1. In the Developer Portal, Bot → turn on "Message Content Intent".\n2. Add the bot to a server you are in: ${checked.value.inviteUrl}\n3. Then message it directly (a DM).`, 'Discord');
      break;
    }
    if (!ui.interactive) throw new SetupFailed(`Discord: ${checked.error}`);
    ui.error(checked.error);
    token = await ui.password({ message: 'Discord bot token', validate: (value) => (value.trim() === '' ? 'paste the bot token' : undefined) });
  }
  if (flags.discordUser.length > 0) return { token: token.trim(), root, allowedUsers: flags.discordUser };
  if (!ui.interactive) {
    if (!existing || existing.allowedUsers.length === 0) ui.warn('No --discord-user: nobody is allowed yet. DM the bot, then approve the code it sends: familiar pairing approve CODE');
    return { token: token.trim(), root, allowedUsers: existing?.allowedUsers ?? [] };
  }
  const typed = await ui.text({
    message: 'Your Discord user id (Settings → Advanced → Developer Mode, then right-click your name → Copy User ID); empty = approve yourself later by pairing',
    initialValue: existing?.allowedUsers.join(',') ?? '',
    validate: (value) => (value.split(',').every((id) => /^\s*\d{0,20}\s*$/.test(id)) ? undefined : 'ids are numbers, separated by commas'),
  });
  return { token: token.trim(), root, allowedUsers: typed.split(',').map((id) => id.trim()).filter((id) => id !== '') };
}

async function keepOrAsk(ui: SetupUi, variable: string, current: string | undefined, question: string): Promise<string> {
  if (current !== undefined && current !== '') {
    if (!ui.interactive) return current;
    if (await ui.confirm({ message: `Keep the ${variable} already in .env (…${current.slice(-4)})?`, initialValue: true })) return current;
  }
  if (!ui.interactive) throw new SetupFailed(`${variable} is not set: pass the token with --${variable.startsWith('TELEGRAM') ? 'telegram' : 'discord'}-token`);
  return ui.password({ message: question, validate: (value) => (value.trim() === '' ? 'a token is needed (or press Ctrl-C to stop)' : undefined) });
}
