import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { readEnvFile } from '../config/env-file.js';
import { EXAMPLE_CONFIG_PATH } from '../config/load.js';
import { isValidTimeZone, systemTimeZone } from '../config/timezone.js';
import { chooseDiscord, chooseTelegram, type ExistingChannel } from './channel-steps.js';
import { chooseSlack, type ExistingSlack } from './slack-step.js';
import { chooseMatrix } from './matrix-step.js';
import { composeSetup } from './compose-env.js';
import { checkDocker } from './docker-check.js';
import { changeOf, narrowMode, writeAtomically, type PlannedFile } from './files.js';
import type { SetupFlags } from './flags.js';
import { chooseLlm, SetupFailed } from './llm-step.js';
import { presetForUrl } from './presets.js';
import { renderConfig, renderEnv, type SetupChoices } from './render.js';
import { chooseConsole, chooseDefaultChat, chooseRun, CONSOLE_LISTEN, type RunChoice } from './run-steps.js';
import { SetupCancelled, type SetupUi } from './ui.js';
import { chooseCalendar } from './calendar-step.js';
import { chooseVoice } from './voice-step.js';
import { chooseSignal, type ExistingSignal } from './signal-step.js';

const SANDBOX_IMAGE = 'familiar-sandbox:latest';

export interface SetupOptions {
  /** Where config.yaml goes; `.env` goes beside it. */
  configFile: string;
  flags: SetupFlags;
  ui: SetupUi;
  /** How the person typed this command (`familiar`, `npm run familiar --`), for the next steps shown. */
  invocation?: string;
  /** `familiar service install` on the config just written; its exit code. */
  installService?: () => Promise<number>;
}

/**
 * `familiar init`: asks (or takes from flags) the LLM, the time zone, the chat channels and the sandbox, then
 * writes config.yaml (no secrets) and .env (the secrets, 0600) beside it. A file that exists and would change is
 * shown as a diff and replaced only when the person says so (--overwrite with --yes).
 * Contract: returns the exit code (0 written or nothing to change, 1 failed or refused, 130 cancelled); never
 * throws for what the person did.
 */
export async function runSetup(options: SetupOptions): Promise<number> {
  const { ui, flags } = options;
  const envFile = path.join(path.dirname(options.configFile), '.env');
  ui.intro('Familiar set-up');
  ui.info(`This writes ${options.configFile} and ${envFile} (secrets only there). Existing files are never replaced without your yes.`);
  try {
    const existing = readExisting(options.configFile, envFile);
    const choices = await collect(ui, flags, existing);
    const run = await chooseRun(ui, flags, { configFile: options.configFile, composeBefore: existing.env.FAMILIAR_UID !== undefined });
    const compose = run.compose ? composeSetup(options.configFile, choices.sandbox !== undefined) : undefined;
    if (compose) {
      Object.assign(choices.env, compose.env);
      ui.info(`Compose: .env gets the variables docker-compose.yml reads (${Object.keys(compose.env).join(', ')})${compose.notes.length > 0 ? `; ${compose.notes.join('; ')}` : ''}.`);
    }
    const written = await writeFiles(ui, flags, [
      { path: options.configFile, text: renderConfig(existing.configText ?? readFileSync(EXAMPLE_CONFIG_PATH, 'utf8'), choices), mode: 0o644, secret: false },
      { path: envFile, text: renderEnv(existing.envText ?? '', choices.env), mode: 0o600, secret: true },
    ], choices, run, options);
    if (written === 0) compose?.prepare();
    if (written === 0 && run.service && options.installService) return await options.installService();
    return written;
  } catch (error) {
    if (error instanceof SetupCancelled) {
      ui.outro('Set-up cancelled; nothing was written.');
      return 130;
    }
    if (error instanceof SetupFailed) {
      ui.error(error.message);
      ui.outro('Nothing was written.');
      return 1;
    }
    throw error;
  }
}

interface ExistingSetup {
  configText?: string;
  envText?: string;
  baseUrl?: string;
  model?: string;
  timezone?: string;
  env: Record<string, string>;
  telegram?: ExistingChannel;
  discord?: ExistingChannel;
  signal?: ExistingSignal;
  slack?: ExistingSlack;
  matrix?: ExistingChannel;
  sandbox: boolean;
  voice: boolean;
  console: boolean;
  heartbeat: boolean;
  defaultChat?: string;
}

async function collect(ui: SetupUi, flags: SetupFlags, existing: ExistingSetup): Promise<SetupChoices> {
  const keyVariableNow = existing.baseUrl !== undefined ? presetForUrl(existing.baseUrl).keyVariable : 'OPENAI_API_KEY';
  const llm = await chooseLlm(ui, flags, {
    ...(existing.baseUrl !== undefined ? { baseUrl: existing.baseUrl } : {}),
    ...(existing.model !== undefined ? { model: existing.model } : {}),
    ...(keyVariableNow !== undefined && existing.env[keyVariableNow] !== undefined ? { key: existing.env[keyVariableNow] } : {}),
  });
  const timezone = await chooseTimezone(ui, flags, existing.timezone);
  const telegram = await chooseTelegram(ui, flags, existing.telegram);
  const discord = await chooseDiscord(ui, flags, existing.discord);
  const signal = await chooseSignal(ui, flags, existing.signal);
  const slack = await chooseSlack(ui, flags, existing.slack);
  const matrix = await chooseMatrix(ui, flags, existing.matrix);
  if (!telegram && !discord && !signal && !slack && !matrix) ui.warn('No chat channel: you can talk to it in the terminal (familiar chat); run familiar init again to add one.');
  const defaultChat = await chooseDefaultChat(ui, flags, telegram?.allowedUsers ?? [], existing.defaultChat);
  const consoleOn = await chooseConsole(ui, flags, existing.console);
  const sandbox = await chooseSandbox(ui, flags, existing.sandbox);
  const voice = await chooseVoice(ui, flags, { llmBaseUrl: llm.baseUrl, llmKey: llm.key, existing: existing.voice });
  const calendar = await chooseCalendar(ui, flags);
  const heartbeat = await chooseHeartbeat(ui, flags, existing.heartbeat);
  const env: Record<string, string> = { ...voice.env, ...calendar.env };
  if (llm.keyVariable !== undefined && llm.key !== '') env[llm.keyVariable] = llm.key;
  if (telegram) env.TELEGRAM_BOT_TOKEN = telegram.token;
  if (discord) env.DISCORD_BOT_TOKEN = discord.token;
  if (slack) Object.assign(env, { SLACK_APP_TOKEN: slack.appToken, SLACK_BOT_TOKEN: slack.botToken });
  if (matrix) env.MATRIX_ACCESS_TOKEN = matrix.token;
  return {
    timezone,
    // A keyless server keeps api_key empty; a key variable is named only when it has a value to hold.
    llm: { baseUrl: llm.baseUrl, model: llm.model, keyVariable: llm.key !== '' ? (llm.keyVariable ?? 'LLM_API_KEY') : undefined },
    ...(telegram ? { telegram: { apiRoot: telegram.root, allowedUsers: telegram.allowedUsers } } : {}),
    ...(discord ? { discord: { apiUrl: discord.root, allowedUsers: discord.allowedUsers } } : {}),
    ...(signal ? { signal } : {}),
    ...(slack ? { slack: { apiUrl: slack.apiUrl, allowedUsers: slack.allowedUsers } } : {}),
    ...(matrix ? { matrix: { homeserver: matrix.homeserver, userId: matrix.userId, allowedUsers: matrix.allowedUsers } } : {}),
    ...(sandbox ? { sandbox: { image: SANDBOX_IMAGE } } : {}),
    ...(voice.choice !== undefined ? { voice: voice.choice } : {}),
    ...(consoleOn ? { console: CONSOLE_LISTEN } : {}),
    ...(calendar.choice !== undefined ? { calendar: calendar.choice } : {}),
    ...(heartbeat !== undefined ? { heartbeat } : {}),
    ...(defaultChat !== undefined && defaultChat !== existing.defaultChat ? { defaultChat } : {}),
    env: llm.key !== '' && llm.keyVariable === undefined ? { ...env, LLM_API_KEY: llm.key } : env,
  };
}

async function chooseTimezone(ui: SetupUi, flags: SetupFlags, current: string | undefined): Promise<string> {
  if (flags.timezone !== undefined) {
    if (!isValidTimeZone(flags.timezone)) throw new SetupFailed(`--timezone ${flags.timezone}: not an IANA time zone (e.g. Europe/Paris, America/New_York)`);
    return flags.timezone;
  }
  const detected = current ?? systemTimeZone();
  if (!ui.interactive) {
    ui.info(`Time zone: ${detected}${current ? '' : ' (this machine\'s)'}`);
    return detected;
  }
  const answer = await ui.text({
    message: `Your time zone (for reminders and dates)${current ? '' : `; this machine says ${detected}`}`,
    initialValue: detected,
    validate: (value) => (isValidTimeZone(value.trim()) ? undefined : 'not an IANA time zone (e.g. Europe/Paris, America/New_York)'),
  });
  return answer.trim();
}

/** The heartbeat: asked when interactive (it is off until its section exists); a flag decides otherwise. */
async function chooseHeartbeat(ui: SetupUi, flags: SetupFlags, current: boolean): Promise<'on' | 'off' | undefined> {
  if (flags.heartbeat !== undefined) return flags.heartbeat ? 'on' : 'off';
  if (!ui.interactive) return undefined;
  const on = await ui.confirm({
    message: 'Turn on the heartbeat? Every 30 minutes it checks new mail, due tasks and failed jobs without the model, and asks the model only when something changed (an idle day costs 0 tokens).',
    initialValue: current,
  });
  return on ? 'on' : 'off';
}

async function chooseSandbox(ui: SetupUi, flags: SetupFlags, current: boolean): Promise<boolean> {
  if (flags.sandbox === false) return false;
  const docker = await checkDocker(SANDBOX_IMAGE);
  let enabled = flags.sandbox ?? current;
  if (flags.sandbox === undefined && docker.answers && ui.interactive) {
    enabled = await ui.confirm({ message: 'Docker answers here. Let the assistant run commands and code in locked-down containers (the sandbox)?', initialValue: current });
  }
  if (!enabled) return false;
  if (!docker.answers) ui.warn(`The sandbox is on but ${docker.detail}; it stays off until Docker runs (familiar doctor says so).`);
  else if (!docker.image) ui.warn(`Build the sandbox image before starting: bash scripts/build-sandbox-image.sh (Debian, no registry needed) or docker build -t ${SANDBOX_IMAGE} docker/sandbox`);
  else ui.success(`Sandbox: on (${SANDBOX_IMAGE}).`);
  return true;
}

type Planned = { file: PlannedFile; change: ReturnType<typeof changeOf> };

async function writeFiles(ui: SetupUi, flags: SetupFlags, files: PlannedFile[], choices: SetupChoices, run: RunChoice, options: SetupOptions): Promise<number> {
  const changes: Planned[] = files.map((file) => ({ file, change: changeOf(file) }));
  const changed = changes.filter(({ change }) => change.kind === 'changed');
  for (const { file, change } of changed) if (change.kind === 'changed') ui.note(change.diff, `${file.path} would change${file.secret ? ' (values masked)' : ''}`);
  if (changed.length > 0 && !flags.overwrite) {
    const names = changed.map(({ file }) => file.path).join(' and ');
    if (!ui.interactive) {
      ui.error(`${names} already exist${changed.length === 1 ? 's' : ''} and would change (diff above); nothing was written. Pass --overwrite to replace ${changed.length === 1 ? 'it' : 'them'}.`);
      return 1;
    }
    // All or nothing: a new config.yaml beside an old .env (or the reverse) would name variables that are not there.
    if (!(await ui.confirm({ message: `Replace ${names} with these changes?`, initialValue: false }))) {
      ui.outro('Nothing was written; your files are as they were.');
      return 1;
    }
  }
  return finish(ui, changes, choices, run, options.invocation ?? 'familiar');
}

function finish(ui: SetupUi, changes: Planned[], choices: SetupChoices, run: RunChoice, familiar: string): number {
  for (const { file, change } of changes) {
    if (change.kind === 'same') {
      ui.info(`${file.path}: unchanged${narrowMode(file) ? ' (now mode 0600: it holds secrets)' : ''}`);
      continue;
    }
    writeAtomically(file);
    ui.success(`${change.kind === 'new' ? 'Wrote' : 'Updated'} ${file.path}${file.secret ? ' (mode 0600)' : ''}`);
  }
  const steps = run.compose
    ? [
      'docker compose up -d --build                            builds the image and runs the daemon',
      'docker compose exec familiar node dist/main.js doctor   checks everything, with what to fix',
    ]
    : [
      `${familiar} doctor   checks everything, with what to fix`,
      run.service ? 'systemctl --user enable --now familiar   runs the daemon now and at every boot (below)' : `${familiar} start    runs the daemon (Ctrl-C stops it)`,
    ];
  steps.push(
    ...(choices.telegram ? ['then message your bot in Telegram'] : []),
    ...(choices.discord ? ['then DM your bot in Discord'] : []),
    ...(choices.signal ? ['then message the bot on Signal (signal-cli\'s daemon must run: docs/channels/signal.md)'] : []),
    ...(choices.slack ? ['then message your app in Slack (or /invite it to a channel and mention it)'] : []),
    ...(choices.matrix ? ['then invite your bot to a room without encryption in Element'] : []),
    ...(!choices.telegram && !choices.discord && !choices.signal && !choices.slack && !choices.matrix ? [`${familiar} chat     talk to it in the terminal`] : []),
    ...(choices.console !== undefined && !run.compose ? [`${familiar} console  a login link to the web console`] : []),
  );
  ui.note(steps.join('\n'), 'Next');
  ui.outro('Done.');
  return 0;
}

function readExisting(configFile: string, envFile: string): ExistingSetup {
  const existing: ExistingSetup = { env: {}, sandbox: false, voice: false, console: false, heartbeat: false };
  if (existsSync(envFile)) {
    existing.envText = readFileSync(envFile, 'utf8');
    existing.env = readEnvFile(envFile).values;
  }
  if (!existsSync(configFile)) return existing;
  existing.configText = readFileSync(configFile, 'utf8');
  const document = parseDocument(existing.configText);
  if (document.errors.length > 0) return existing;
  const raw = (document.toJS() ?? {}) as Record<string, unknown>;
  const pick = (...keys: string[]): unknown => keys.reduce<unknown>((value, key) => (value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined), raw);
  const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' && !value.includes('${') ? value : undefined);
  const set = <K extends keyof ExistingSetup>(key: K, value: ExistingSetup[K] | undefined): void => {
    if (value !== undefined) existing[key] = value;
  };
  set('baseUrl', text(pick('llm', 'base_url')));
  set('model', text(pick('llm', 'model')));
  set('timezone', text(pick('timezone')));
  existing.sandbox = pick('tools', 'sandbox') !== undefined && pick('tools', 'sandbox') !== null;
  existing.voice = pick('voice') !== undefined && pick('voice') !== null;
  existing.heartbeat = pick('heartbeat') !== undefined && pick('heartbeat') !== null;
  const listen = pick('http', 'listen');
  existing.console = typeof listen === 'string' && listen !== '' && listen !== '${FAMILIAR_HTTP_LISTEN:-}' && pick('http', 'console') !== false;
  set('defaultChat', text(pick('scheduler', 'default_chat')));
  const channel = (name: 'telegram' | 'discord' | 'matrix', rootKey: string, variable: string): ExistingChannel | undefined => {
    if (pick('channels', name) === undefined) return undefined;
    const users = pick('channels', name, 'allowed_users');
    const root = text(pick('channels', name, rootKey));
    const token = existing.env[variable];
    return { allowedUsers: Array.isArray(users) ? users.map(String) : [], ...(root !== undefined ? { root } : {}), ...(token !== undefined ? { token } : {}) };
  };
  set('telegram', channel('telegram', 'api_root', 'TELEGRAM_BOT_TOKEN'));
  set('discord', channel('discord', 'api_url', 'DISCORD_BOT_TOKEN'));
  if (pick('channels', 'signal') !== undefined) {
    const users = pick('channels', 'signal', 'allowed_users');
    const url = text(pick('channels', 'signal', 'url'));
    const account = text(pick('channels', 'signal', 'account'));
    set('signal', { allowedUsers: Array.isArray(users) ? users.map(String) : [], ...(url !== undefined ? { url } : {}), ...(account !== undefined ? { account } : {}) });
  }
  if (pick('channels', 'slack') !== undefined) {
    const users = pick('channels', 'slack', 'allowed_users');
    const apiUrl = text(pick('channels', 'slack', 'api_url'));
    const { SLACK_APP_TOKEN: appToken, SLACK_BOT_TOKEN: botToken } = existing.env;
    existing.slack = {
      allowedUsers: Array.isArray(users) ? users.map(String) : [], ...(apiUrl !== undefined ? { apiUrl } : {}),
      ...(appToken !== undefined ? { appToken } : {}), ...(botToken !== undefined ? { botToken } : {}),
    };
  }
  set('matrix', channel('matrix', 'homeserver_url', 'MATRIX_ACCESS_TOKEN'));
  return existing;
}
