import { parseArgs } from 'node:util';
import { toParseArgs, type OptionSpec } from '../lib/cli-options.js';
import type { Result } from '../lib/result.js';
import { MATRIX_USER_ID } from '../config/matrix-schema.js';

/** Every question of `familiar init` has a flag; with --yes, what no flag says is the default (or the current value). */
export interface SetupFlags {
  yes: boolean;
  /** --caldav-url and its login; --no-calendar removes tools.calendar. Undefined: not asked about (--yes). */
  calendar: { off: boolean; url?: string; user?: string; password?: string };
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
  signal: boolean | undefined;
  signalAccount: string | undefined;
  signalUser: string[];
  signalUrl: string | undefined;
  /** --slack-app-token, --slack-bot-token, --slack-user, --slack-api-url; --no-slack. */
  slack: { on: boolean | undefined; appToken?: string; botToken?: string; users: string[]; apiUrl?: string };
  matrix: boolean | undefined;
  matrixHomeserver: string | undefined;
  matrixToken: string | undefined;
  matrixUser: string[];
  sandbox: boolean | undefined;
  /** --voice / --no-voice; the engines' own flags turn it on too. */
  voice: boolean | undefined;
  stt: { url?: string; key?: string; model?: string; command?: string };
  tts: { url?: string; key?: string; model?: string; voice?: string; command?: string };
  /** --console / --no-console: the web console on 127.0.0.1:8484. */
  console: boolean | undefined;
  /** --heartbeat / --no-heartbeat: `heartbeat: { every: 30m }` (docs/heartbeat.md). */
  heartbeat: boolean | undefined;
  /** scheduler.default_chat (`telegram:123`), `none` for none. */
  defaultChat: string | undefined;
  /** Writes the variables docker-compose.yml reads (and, as root, hands ./data to the container's uid). */
  compose: boolean;
  /** Installs a systemd user unit once the files are written (familiar service install). */
  service: boolean;
  overwrite: boolean;
}

/** A Slack member id (`U0123ABCD`; `W…` on Enterprise Grid). */
export const SLACK_MEMBER_ID = /^[UW][A-Z0-9]{2,}$/;

/** init's flags: parsed here, shown by `familiar init --help`, completed by the shell scripts. */
export const INIT_OPTIONS: readonly OptionSpec[] = [
  { name: 'yes', short: 'y', description: 'ask nothing: flags, else the current values, else the defaults' },
  { name: 'provider', value: 'P', description: 'openai | openrouter | ollama | llamacpp | custom', choices: ['openai', 'openrouter', 'ollama', 'llamacpp', 'custom'] },
  { name: 'base-url', value: 'URL', description: 'the LLM server (any OpenAI-compatible base URL)' },
  { name: 'api-key', value: 'KEY', description: 'the LLM key (goes to .env); mind your shell history' },
  { name: 'model', value: 'NAME', description: 'the model' },
  { name: 'skip-llm-test', description: 'write the files without testing the key and model' },
  { name: 'timezone', value: 'ZONE', description: "IANA zone (default: the machine's)" },
  { name: 'telegram-token', value: 'TOKEN', description: 'set up Telegram with this bot token (checked with getMe)' },
  { name: 'telegram-user', value: 'ID', multiple: true, description: 'your Telegram user id (repeatable); without it, init waits for your first message (interactive) or leaves the allowlist to pairing (--yes)' },
  { name: 'telegram-api-root', value: 'URL', description: 'a self-hosted Bot API server' },
  { name: 'telegram-wait', value: 'S', description: 'how long to wait for that first message (default 300)' },
  { name: 'no-telegram', description: 'no Telegram' },
  { name: 'discord-token', value: 'TOKEN', description: 'set up Discord with this bot token' },
  { name: 'discord-user', value: 'ID', multiple: true, description: 'your Discord user id (repeatable)' },
  { name: 'discord-api-url', value: 'URL', description: 'another Discord REST base' },
  { name: 'no-discord', description: 'no Discord' },
  { name: 'signal-account', value: 'NUMBER', description: 'set up Signal: the number signal-cli runs for (+4915…)' },
  { name: 'signal-user', value: 'ID', multiple: true, description: 'your Signal number or UUID (repeatable)' },
  { name: 'signal-url', value: 'URL', description: "signal-cli's HTTP daemon (default http://127.0.0.1:8080)" },
  { name: 'no-signal', description: 'no Signal' },
  { name: 'slack-app-token', value: 'TOKEN', description: 'set up Slack: its app-level token (xapp-…)' },
  { name: 'slack-bot-token', value: 'TOKEN', description: 'and its bot token (xoxb-…)' },
  { name: 'slack-user', value: 'ID', multiple: true, description: 'your Slack member id (repeatable)' },
  { name: 'slack-api-url', value: 'URL', description: 'another Slack Web API base' },
  { name: 'no-slack', description: 'no Slack' },
  { name: 'matrix-homeserver', value: 'URL', description: 'set up Matrix on this homeserver (its client API address)' },
  { name: 'matrix-token', value: 'TOKEN', description: 'the Matrix bot account\'s access token (goes to .env as MATRIX_ACCESS_TOKEN)' },
  { name: 'matrix-user', value: 'ID', multiple: true, description: 'your Matrix user id, @you:example.org (repeatable)' },
  { name: 'no-matrix', description: 'no Matrix' },
  { name: 'sandbox', description: 'the Docker sandbox on (asked only when Docker answers)' },
  { name: 'no-sandbox', description: 'the Docker sandbox off' },
  { name: 'voice', description: "voice notes transcribed and answers spoken when asked; alone: OpenAI's audio endpoints when the LLM is OpenAI (same key), else espeak-ng" },
  { name: 'no-voice', description: 'no voice' },
  { name: 'stt-url', value: 'URL', description: 'speech to text through this OpenAI-compatible server (a local Whisper server…)' },
  { name: 'stt-key', value: 'KEY', description: 'its key (goes to .env as STT_API_KEY)' },
  { name: 'stt-model', value: 'NAME', description: 'its model (default whisper-1)' },
  { name: 'stt-command', value: 'CMD', description: 'or a local recogniser: {input} is a 16 kHz mono WAV file, it prints the text' },
  { name: 'tts-url', value: 'URL', description: 'text to speech through this OpenAI-compatible server' },
  { name: 'tts-key', value: 'KEY', description: 'its key (goes to .env as TTS_API_KEY)' },
  { name: 'tts-model', value: 'NAME', description: 'its model (default tts-1)' },
  { name: 'tts-voice', value: 'V', description: 'its voice' },
  { name: 'tts-command', value: 'CMD', description: 'or a local synthesiser: the text on stdin, audio to {output} or stdout (espeak-ng --stdout)' },
  { name: 'caldav-url', value: 'URL', description: 'your CalDAV server (Radicale, Baïkal, Nextcloud…), for the calendar tool' },
  { name: 'caldav-user', value: 'USER', description: 'its login' },
  { name: 'caldav-password', value: 'P', description: 'its password (goes to .env as CALDAV_PASSWORD)' },
  { name: 'no-calendar', description: 'no calendar' },
  { name: 'console', description: 'the web console on 127.0.0.1:8484 (http.listen); familiar console prints a login link' },
  { name: 'no-console', description: 'no web console (http.listen left as it is)' },
  { name: 'heartbeat', description: 'the heartbeat: every 30 minutes, probes without the model (new mail, due tasks, failed jobs); the model only when something changed' },
  { name: 'no-heartbeat', description: 'no heartbeat' },
  { name: 'default-chat', value: 'TARGET', description: 'where results of jobs made in the terminal go, e.g. telegram:123 (default: your Telegram chat when known; none for none)' },
  { name: 'compose', description: 'run it with Docker Compose: .env gets the variables docker-compose.yml reads; as root, ./data is handed to uid 1000' },
  { name: 'service', description: 'install a systemd user service once the files are written (familiar service install)' },
  { name: 'overwrite', description: 'replace existing files that differ (with --yes; interactively you are asked)' },
];

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
  --signal-account NUMBER   set up Signal: the number signal-cli runs for (+4915…)
  --signal-user ID          your Signal number or UUID (repeatable)
  --signal-url URL          signal-cli's HTTP daemon (default http://127.0.0.1:8080)
  --no-signal               no Signal
  --slack-app-token TOKEN   set up Slack (Socket Mode): its app-level token (xapp-…); --slack-bot-token TOKEN
                            its bot token (xoxb-…); --slack-user ID your member id; --slack-api-url URL; --no-slack
  --matrix-homeserver URL   set up Matrix on this homeserver (its client API address)
  --matrix-token TOKEN      the Matrix bot account's access token (goes to .env as MATRIX_ACCESS_TOKEN)
  --matrix-user ID          your Matrix user id, @you:example.org (repeatable)
  --no-matrix               no Matrix
  --sandbox / --no-sandbox  the Docker sandbox on or off (asked only when Docker answers)
  --voice / --no-voice      voice notes transcribed and answers spoken when asked; --voice alone uses OpenAI's
                            audio endpoints when the LLM is OpenAI (same key), else espeak-ng for speech
  --stt-url URL             speech to text through this OpenAI-compatible server (a local Whisper server…)
  --stt-model NAME          its model (default whisper-1); --stt-key KEY its key (goes to .env as STT_API_KEY)
  --stt-command "CMD"       or a local recogniser: {input} is a 16 kHz mono WAV file, it prints the text
  --tts-url URL             text to speech through this OpenAI-compatible server
  --tts-model NAME          its model (default tts-1); --tts-voice V; --tts-key KEY (.env: TTS_API_KEY)
  --tts-command "CMD"       or a local synthesiser: the text on stdin, audio to {output} or stdout (espeak-ng --stdout)
  --caldav-url URL          your CalDAV calendar (Radicale, Baïkal, Nextcloud…); --caldav-user USER,
                            --caldav-password P (.env: CALDAV_PASSWORD); --no-calendar: none
  --console / --no-console  the web console on 127.0.0.1:8484 (http.listen), or none
  --heartbeat / --no-heartbeat  notice new mail, due tasks and failed jobs every 30 minutes (0 tokens while idle)
  --default-chat TARGET     where results of jobs made in the terminal go (telegram:123; none); default: your
                            Telegram chat when init learnt it
  --compose                 run it with Docker Compose: .env gets the variables docker-compose.yml reads, and as
                            root ./data is handed to uid 1000 (the container's)
  --service                 install a systemd user service once the files are written (familiar service install)
  --overwrite               replace existing files that differ (with --yes; interactively you are asked)
`;

export function parseSetupFlags(args: string[]): Result<SetupFlags> {
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: false, strict: true, options: toParseArgs(INIT_OPTIONS) });
  } catch (error) {
    return { success: false, error: (error as Error).message };
  }
  // The declarations are data (INIT_OPTIONS), so parseArgs cannot type each value: read them by their kind.
  const raw = parsed.values;
  const text = (name: string): string | undefined => (typeof raw[name] === 'string' ? raw[name] : undefined);
  const flag = (name: string): boolean | undefined => (raw[name] === true ? true : undefined);
  const list = (name: string): string[] | undefined => (Array.isArray(raw[name]) ? raw[name].filter((item) => typeof item === 'string') : undefined);
  const values = {
    yes: flag('yes'), provider: text('provider'), 'base-url': text('base-url'), model: text('model'), 'api-key': text('api-key'),
    'skip-llm-test': flag('skip-llm-test'), timezone: text('timezone'), 'telegram-token': text('telegram-token'),
    'telegram-user': list('telegram-user'), 'telegram-api-root': text('telegram-api-root'), 'telegram-wait': text('telegram-wait'),
    'no-telegram': flag('no-telegram'), 'discord-token': text('discord-token'), 'discord-user': list('discord-user'),
    'discord-api-url': text('discord-api-url'), 'no-discord': flag('no-discord'),
    'signal-account': text('signal-account'), 'signal-user': list('signal-user'), 'signal-url': text('signal-url'), 'no-signal': flag('no-signal'),
    'slack-app-token': text('slack-app-token'), 'slack-bot-token': text('slack-bot-token'), 'slack-user': list('slack-user'), 'slack-api-url': text('slack-api-url'), 'no-slack': flag('no-slack'),
    'matrix-homeserver': text('matrix-homeserver'), 'matrix-token': text('matrix-token'), 'matrix-user': list('matrix-user'), 'no-matrix': flag('no-matrix'),
    sandbox: flag('sandbox'), 'no-sandbox': flag('no-sandbox'),
    overwrite: flag('overwrite'), voice: flag('voice'), 'no-voice': flag('no-voice'),
    console: flag('console'), 'no-console': flag('no-console'), heartbeat: flag('heartbeat'), 'no-heartbeat': flag('no-heartbeat'), 'default-chat': text('default-chat'), compose: flag('compose'), service: flag('service'),
    'stt-url': text('stt-url'), 'stt-key': text('stt-key'), 'stt-model': text('stt-model'), 'stt-command': text('stt-command'),
    'tts-url': text('tts-url'), 'tts-key': text('tts-key'), 'tts-model': text('tts-model'), 'tts-voice': text('tts-voice'), 'tts-command': text('tts-command'),
    'caldav-url': text('caldav-url'), 'caldav-user': text('caldav-user'), 'caldav-password': text('caldav-password'), 'no-calendar': flag('no-calendar'),
  };
  const wait = values['telegram-wait'] !== undefined ? Number(values['telegram-wait']) : 300;
  if (!Number.isFinite(wait) || wait < 0) return { success: false, error: `--telegram-wait ${values['telegram-wait']}: give seconds` };
  const badId = checkChannelIds(values);
  if (badId !== undefined) return { success: false, error: badId };
  const either = (on: boolean | undefined, off: boolean | undefined, given: unknown): boolean | undefined => (off === true ? false : on === true || given !== undefined ? true : undefined);
  const chat = values['default-chat'];
  if (chat !== undefined && chat !== 'none' && !/^[a-z]+:\S+$/.test(chat)) return { success: false, error: `--default-chat ${chat}: give a chat as channel:id (telegram:123456789), or none` };
  if (values.compose === true && values.service === true) return { success: false, error: '--compose and --service: choose one (Compose restarts the container itself)' };
  if (values['stt-url'] !== undefined && values['stt-command'] !== undefined) return { success: false, error: '--stt-url and --stt-command: choose one (a server, or a command on this machine)' };
  if (values['tts-url'] !== undefined && values['tts-command'] !== undefined) return { success: false, error: '--tts-url and --tts-command: choose one (a server, or a command on this machine)' };
  const defined = <T extends Record<string, string | undefined>>(entries: T): { [K in keyof T]?: string } =>
    Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== undefined)) as { [K in keyof T]?: string };
  const stt = defined({ url: values['stt-url'], key: values['stt-key'], model: values['stt-model'], command: values['stt-command'] });
  const tts = defined({ url: values['tts-url'], key: values['tts-key'], model: values['tts-model'], voice: values['tts-voice'], command: values['tts-command'] });
  if (values['caldav-url'] !== undefined && !/^https?:\/\/\S+$/.test(values['caldav-url'])) return { success: false, error: `--caldav-url ${values['caldav-url']}: give the server's http(s):// address` };
  const calendar = defined({ url: values['caldav-url'], user: values['caldav-user'], password: values['caldav-password'] });
  return {
    success: true,
    value: {
      yes: values.yes === true,
      calendar: { off: values['no-calendar'] === true, ...calendar },
      provider: values.provider, baseUrl: values['base-url'], model: values.model, apiKey: values['api-key'],
      skipLlmTest: values['skip-llm-test'] === true, timezone: values.timezone,
      telegram: either(undefined, values['no-telegram'], values['telegram-token']),
      telegramToken: values['telegram-token'], telegramUser: values['telegram-user'] ?? [], telegramApiRoot: values['telegram-api-root'],
      telegramWaitS: wait,
      discord: either(undefined, values['no-discord'], values['discord-token']),
      discordToken: values['discord-token'], discordUser: values['discord-user'] ?? [], discordApiUrl: values['discord-api-url'],
      signal: either(undefined, values['no-signal'], values['signal-account']),
      signalAccount: values['signal-account'], signalUser: values['signal-user'] ?? [], signalUrl: values['signal-url'],
      slack: {
        on: either(undefined, values['no-slack'], values['slack-bot-token'] ?? values['slack-app-token']), users: values['slack-user'] ?? [],
        ...defined({ appToken: values['slack-app-token'], botToken: values['slack-bot-token'], apiUrl: values['slack-api-url'] }),
      },
      matrix: either(undefined, values['no-matrix'], values['matrix-token'] ?? values['matrix-homeserver']),
      matrixHomeserver: values['matrix-homeserver']?.replace(/\/+$/, ''), matrixToken: values['matrix-token'], matrixUser: values['matrix-user'] ?? [],
      sandbox: either(values.sandbox, values['no-sandbox'], undefined),
      voice: either(values.voice, values['no-voice'], stt.url ?? stt.command ?? tts.url ?? tts.command),
      stt, tts,
      console: either(values.console, values['no-console'], undefined),
      heartbeat: either(values.heartbeat, values['no-heartbeat'], undefined),
      defaultChat: chat,
      compose: values.compose === true,
      service: values.service === true,
      overwrite: values.overwrite === true,
    },
  };
}

/** The channels' user ids and addresses as each platform writes them; the first that is not, in words. */
function checkChannelIds(values: Record<string, string | string[] | boolean | undefined>): string | undefined {
  const list = (name: string): string[] => (Array.isArray(values[name]) ? values[name] : []);
  const text = (name: string): string | undefined => (typeof values[name] === 'string' ? values[name] : undefined);
  for (const id of [...list('telegram-user'), ...list('discord-user')]) {
    if (!/^\d{1,20}$/.test(id)) return `user id ${id}: ids are numbers (Telegram: a message to @userinfobot; Discord: Developer Mode → Copy User ID)`;
  }
  for (const id of list('signal-user')) {
    if (!/^(?:\+[1-9]\d{5,17}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i.test(id)) return `--signal-user ${id}: a number in international form (+4917…) or a Signal UUID`;
  }
  const account = text('signal-account');
  if (account !== undefined && !/^\+[1-9]\d{5,17}$/.test(account)) return `--signal-account ${account}: the number in international form (+4915…)`;
  const url = text('signal-url');
  if (url !== undefined && !/^https?:\/\/\S+$/.test(url)) return `--signal-url ${url}: give signal-cli's http:// address`;
  const matrixUser = list('matrix-user').find((id) => !MATRIX_USER_ID.test(id));
  if (matrixUser !== undefined) return `--matrix-user ${matrixUser}: a Matrix user id looks like @alice:example.org`;
  const homeserver = text('matrix-homeserver');
  if (homeserver !== undefined && !/^https?:\/\/\S+$/.test(homeserver)) return `--matrix-homeserver ${homeserver}: give the homeserver's http(s):// address`;
  const slackUser = list('slack-user').find((id) => !SLACK_MEMBER_ID.test(id));
  if (slackUser !== undefined) return `--slack-user ${slackUser}: a Slack member id looks like U0123ABCD (your profile → ⋮ → Copy member ID)`;
  return undefined;
}
