import { parseArgs } from 'node:util';

/** Every question of `familiar init` has a flag; with --yes, what no flag says is the default (or the current value). */
export interface SetupFlags {
  yes: boolean;
  provider: string | undefined;
  baseUrl: string | undefined;
  model: string | undefined;
  apiKey: string | undefined;
  skipLlmTest: boolean;
  timezone: string | undefined;
  telegram: boolean | undefined;
  telegramToken: string | undefined;
  telegramUser: string[];
  telegramApiRoot: string | undefined;
  telegramWaitS: number;
  discord: boolean | undefined;
  discordToken: string | undefined;
  discordUser: string[];
  discordApiUrl: string | undefined;
  sandbox: boolean | undefined;
  overwrite: boolean;
}

export const INIT_USAGE = `usage: familiar init [--config FILE] [--yes] [flags]

Writes config.yaml (no secrets: \${NAME} references) and .env beside it (the secrets, mode 0600). Asks before
changing an existing file, showing the diff. Every question has a flag; with --yes nothing is asked.

  --yes, -y                 ask nothing: flags, else the current values, else the defaults
  --provider P              openai | openrouter | ollama | llamacpp | custom
  --base-url URL            the LLM server (any OpenAI-compatible base URL)
  --api-key KEY             the LLM key (goes to .env); mind your shell history
  --model NAME              the model
  --skip-llm-test           write the files without testing the key and model
  --timezone ZONE           IANA zone (default: the machine's)
  --telegram-token TOKEN    set up Telegram with this bot token (checked with getMe)
  --telegram-user ID        your Telegram user id (repeatable); without it, init waits for your first message
                            (interactive) or leaves the allowlist to pairing (--yes)
  --telegram-api-root URL   a self-hosted Bot API server
  --telegram-wait S         how long to wait for that first message (default 300)
  --no-telegram             no Telegram
  --discord-token TOKEN     set up Discord with this bot token
  --discord-user ID         your Discord user id (repeatable)
  --discord-api-url URL     another Discord REST base
  --no-discord              no Discord
  --sandbox / --no-sandbox  the Docker sandbox on or off (asked only when Docker answers)
  --overwrite               replace existing files that differ (with --yes; interactively you are asked)
`;

export function parseSetupFlags(args: string[]): { success: true; value: SetupFlags } | { success: false; error: string } {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: false,
      strict: true,
      options: {
        yes: { type: 'boolean', short: 'y' }, provider: { type: 'string' }, 'base-url': { type: 'string' }, model: { type: 'string' },
        'api-key': { type: 'string' }, 'skip-llm-test': { type: 'boolean' }, timezone: { type: 'string' },
        'telegram-token': { type: 'string' }, 'telegram-user': { type: 'string', multiple: true }, 'telegram-api-root': { type: 'string' },
        'telegram-wait': { type: 'string' }, 'no-telegram': { type: 'boolean' },
        'discord-token': { type: 'string' }, 'discord-user': { type: 'string', multiple: true }, 'discord-api-url': { type: 'string' },
        'no-discord': { type: 'boolean' }, sandbox: { type: 'boolean' }, 'no-sandbox': { type: 'boolean' }, overwrite: { type: 'boolean' },
      },
    });
  } catch (error) {
    return { success: false, error: (error as Error).message };
  }
  const values = parsed.values;
  const wait = values['telegram-wait'] !== undefined ? Number(values['telegram-wait']) : 300;
  if (!Number.isFinite(wait) || wait < 0) return { success: false, error: `--telegram-wait ${values['telegram-wait']}: give seconds` };
  for (const id of [...(values['telegram-user'] ?? []), ...(values['discord-user'] ?? [])]) {
    if (!/^\d{1,20}$/.test(id)) return { success: false, error: `user id ${id}: ids are numbers (Telegram: a message to @userinfobot; Discord: Developer Mode → Copy User ID)` };
  }
  const either = (on: boolean | undefined, off: boolean | undefined, given: unknown): boolean | undefined => (off === true ? false : on === true || given !== undefined ? true : undefined);
  return {
    success: true,
    value: {
      yes: values.yes === true,
      provider: values.provider, baseUrl: values['base-url'], model: values.model, apiKey: values['api-key'],
      skipLlmTest: values['skip-llm-test'] === true, timezone: values.timezone,
      telegram: either(undefined, values['no-telegram'], values['telegram-token']),
      telegramToken: values['telegram-token'], telegramUser: values['telegram-user'] ?? [], telegramApiRoot: values['telegram-api-root'],
      telegramWaitS: wait,
      discord: either(undefined, values['no-discord'], values['discord-token']),
      discordToken: values['discord-token'], discordUser: values['discord-user'] ?? [], discordApiUrl: values['discord-api-url'],
      sandbox: either(values.sandbox, values['no-sandbox'], undefined),
      overwrite: values.overwrite === true,
    },
  };
}
