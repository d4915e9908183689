import { isMap, isSeq, parseDocument, type Document } from 'yaml';
import type { EngineChoice, VoiceChoice } from './voice-step.js';

/** What `familiar init` decided; secrets are only in `env`, the config names them as `${NAME}`. */
export interface SetupChoices {
  timezone: string;
  llm: { baseUrl: string; model: string; keyVariable: string | undefined };
  telegram?: { apiRoot?: string; allowedUsers: string[] };
  discord?: { apiUrl?: string; allowedUsers: string[] };
  signal?: { url: string; account: string; allowedUsers: string[] };
  slack?: { apiUrl: string; allowedUsers: string[] };
  matrix?: { homeserver: string; userId: string; allowedUsers: string[] };
  sandbox?: { image: string };
  /** Absent: the voice section is left as it is. */
  voice?: VoiceChoice;
  /** The web console (http.listen) on this loopback address; absent: http is left as it is. */
  console?: string;
  /** tools.calendar with one CalDAV account (its password as ${CALDAV_PASSWORD}); 'off' removes it; absent: left as it is. */
  calendar?: { url: string; user: string; password: boolean } | 'off';
  /** `on`: a heartbeat section (every 30m) unless one is there; `off`: removed; absent: left as it is. */
  heartbeat?: 'on' | 'off';
  /** scheduler.default_chat; absent: left as it is. */
  defaultChat?: string;
  /** Secret values by variable name, for `.env`. */
  env: Record<string, string>;
}

const DEFAULT_TELEGRAM_ROOT = 'https://api.telegram.org';
const DEFAULT_DISCORD_URL = 'https://discord.com/api';

/**
 * The new config.yaml: the person's existing file when there is one (its comments and other keys kept), else
 * config.example.yaml (every key documented). Only the keys init asks about are set; channels that were not
 * chosen are removed, so no `${TOKEN}` stays behind unset.
 */
export function renderConfig(baseText: string, choices: SetupChoices): string {
  // The example documents timezone as a comment; it becomes the key, in its place, with its comment.
  const text = /^timezone:/m.test(baseText) ? baseText : baseText.replace(/^# (timezone: \S+)( +#.*)?$/m, '$1$2');
  let document = parseDocument(text);
  if (document.errors.length > 0 || !isMap(document.contents)) document = parseDocument('{}\n');
  setTop(document, 'timezone', choices.timezone);
  document.setIn(['llm', 'base_url'], choices.llm.baseUrl);
  document.setIn(['llm', 'api_key'], choices.llm.keyVariable !== undefined ? `\${${choices.llm.keyVariable}}` : '');
  document.setIn(['llm', 'model'], choices.llm.model);

  if (choices.telegram) {
    document.setIn(['channels', 'telegram', 'token'], '${TELEGRAM_BOT_TOKEN}');
    document.setIn(['channels', 'telegram', 'api_root'], choices.telegram.apiRoot ?? DEFAULT_TELEGRAM_ROOT);
    // Telegram ids are numbers; written as numbers so the file reads like the example.
    document.setIn(['channels', 'telegram', 'allowed_users'], flow(document, choices.telegram.allowedUsers.map(Number)));
  } else remove(document, ['channels', 'telegram']);
  if (choices.discord) {
    document.setIn(['channels', 'discord', 'token'], '${DISCORD_BOT_TOKEN}');
    document.setIn(['channels', 'discord', 'api_url'], choices.discord.apiUrl ?? DEFAULT_DISCORD_URL);
    document.setIn(['channels', 'discord', 'allowed_users'], flow(document, choices.discord.allowedUsers));
  } else remove(document, ['channels', 'discord']);
  if (choices.signal) {
    document.setIn(['channels', 'signal', 'url'], choices.signal.url);
    document.setIn(['channels', 'signal', 'account'], choices.signal.account);
    document.setIn(['channels', 'signal', 'allowed_users'], flow(document, choices.signal.allowedUsers));
  } else remove(document, ['channels', 'signal']);
  if (choices.slack) {
    document.setIn(['channels', 'slack', 'app_token'], '${SLACK_APP_TOKEN}');
    document.setIn(['channels', 'slack', 'bot_token'], '${SLACK_BOT_TOKEN}');
    document.setIn(['channels', 'slack', 'api_url'], choices.slack.apiUrl);
    document.setIn(['channels', 'slack', 'allowed_users'], flow(document, choices.slack.allowedUsers));
  } else remove(document, ['channels', 'slack']);
  if (choices.matrix) {
    document.setIn(['channels', 'matrix', 'homeserver_url'], choices.matrix.homeserver);
    document.setIn(['channels', 'matrix', 'user_id'], choices.matrix.userId);
    document.setIn(['channels', 'matrix', 'access_token'], '${MATRIX_ACCESS_TOKEN}');
    document.setIn(['channels', 'matrix', 'allowed_users'], flow(document, choices.matrix.allowedUsers));
  } else remove(document, ['channels', 'matrix']);
  const channels = document.getIn(['channels']);
  if (isMap(channels) && channels.items.length === 0) channels.flow = true;

  if (choices.sandbox) document.setIn(['tools', 'sandbox', 'image'], choices.sandbox.image);
  else remove(document, ['tools', 'sandbox']);

  if (choices.console !== undefined) {
    // An address the person chose stays; an empty one (the example's) gets this one. Docker sets
    // FAMILIAR_HTTP_LISTEN for its healthcheck, so that variable still wins.
    const listen = document.getIn(['http', 'listen']);
    if (listen === undefined || listen === null || listen === '' || listen === '${FAMILIAR_HTTP_LISTEN:-}') {
      document.setIn(['http', 'listen'], `\${FAMILIAR_HTTP_LISTEN:-${choices.console}}`);
    }
    document.setIn(['http', 'console'], true);
  }
  if (choices.defaultChat !== undefined) document.setIn(['scheduler', 'default_chat'], choices.defaultChat);
  if (choices.calendar === 'off') remove(document, ['tools', 'calendar']);
  else if (choices.calendar) {
    document.setIn(['tools', 'calendar', 'accounts'], document.createNode([{ name: 'home', url: choices.calendar.url, user: choices.calendar.user, ...(choices.calendar.password ? { password: '${CALDAV_PASSWORD}' } : {}) }]));
  }
  if (choices.heartbeat === 'off') remove(document, ['heartbeat']);
  else if (choices.heartbeat === 'on' && !document.hasIn(['heartbeat'])) document.setIn(['heartbeat'], document.createNode({ every: '30m', active_hours: '08:00-22:00' }));

  if (choices.voice === 'off') remove(document, ['voice']);
  else if (choices.voice) {
    for (const which of ['stt', 'tts'] as const) {
      const engine = choices.voice[which];
      if (!engine) {
        remove(document, ['voice', which]);
        continue;
      }
      const node = document.createNode(engineSection(engine, which));
      const command = node.get('command', true);
      if (isSeq(command)) command.flow = true;
      document.setIn(['voice', which], node);
    }
  }
  return document.toString({ lineWidth: 0 });
}

/** voice.stt / voice.tts as written: keys only as `${NAME}`, a command as a list of words. */
function engineSection(engine: EngineChoice, which: 'stt' | 'tts'): Record<string, unknown> {
  if (engine.kind === 'llm') return { model: which === 'stt' ? 'whisper-1' : 'tts-1' };
  if (engine.kind === 'command') return { command: engine.command };
  return {
    base_url: engine.baseUrl, model: engine.model,
    ...(engine.keyVariable !== undefined ? { api_key: `\${${engine.keyVariable}}` } : {}),
    ...(engine.voice !== undefined ? { voice: engine.voice } : {}),
  };
}

/**
 * The new `.env`: the existing lines kept in order (comments too), our variables replaced where they were and
 * appended where they were not. Values are quoted only when dotenv would misread them.
 */
export function renderEnv(existing: string, values: Record<string, string>): string {
  const pending = new Map(Object.entries(values));
  const lines = existing === '' ? ['# Secrets for Familiar (written by familiar init). config.yaml names them as ${NAME}. Keep this file private (mode 0600).'] : existing.replace(/\n$/, '').split('\n');
  const out = lines.map((line) => {
    const name = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(line)?.[1];
    if (name === undefined || !pending.has(name)) return line;
    const value = pending.get(name) ?? '';
    pending.delete(name);
    return `${name}=${quote(value)}`;
  });
  for (const [name, value] of pending) out.push(`${name}=${quote(value)}`);
  return `${out.join('\n')}\n`;
}

/** The `.env` text with every value masked, for showing a diff on the terminal. */
export function maskEnv(text: string): string {
  return text.split('\n').map((line) => {
    const match = /^(\s*(?:export\s+)?[A-Za-z_][A-Za-z0-9_]*\s*=)(.*)$/.exec(line);
    if (!match) return line;
    const value = (match[2] ?? '').trim().replace(/^(['"])(.*)\1$/, '$2');
    return `${match[1] ?? ''}${value === '' ? '' : `****${value.length > 8 ? value.slice(-4) : ''}`}`;
  }).join('\n');
}

function quote(value: string): string {
  if (/^[A-Za-z0-9_\-:./+=@,]*$/.test(value)) return value;
  if (!value.includes("'")) return `'${value}'`;
  return `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}

function setTop(document: Document, key: string, value: string): void {
  if (document.has(key)) {
    document.set(key, value);
    return;
  }
  // First in the file, where the example documents it (commented out).
  const contents = document.contents;
  if (isMap(contents)) contents.items.unshift(document.createPair(key, value));
}

/** deleteIn throws when a parent is missing (or not a mapping); nothing there means nothing to remove. */
function remove(document: Document, keys: string[]): void {
  const parent = keys.length > 1 ? document.getIn(keys.slice(0, -1)) : document.contents;
  if (isMap(parent) && parent.has(keys.at(-1))) parent.delete(keys.at(-1));
}

function flow(document: Document, values: ReadonlyArray<string | number>) {
  const node = document.createNode([...values]);
  node.flow = true;
  return node;
}
