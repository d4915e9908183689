import { isDeepStrictEqual } from 'node:util';
import type { Config } from './schema.js';

/**
 * What a running daemon can take from a changed config without a restart. The daemon's `Config` object is the live
 * holder: every part keeps the object (or the section) it was given and reads these keys when it uses them, so a
 * reload writes the new values into that same object, key by key; the few parts that derive something from a key
 * when they are made (allowlists, the model list, the registry's limits, declared jobs) are told after the write.
 * Anything not listed here is read once at start (a token, a folder, a listen address, a client's base URL) and is
 * named as needing a restart.
 */
export const LIVE_KEYS: readonly string[] = [
  'channels.telegram.allowed_users', 'channels.discord.allowed_users', 'channels.signal.allowed_users',
  'channels.slack.allowed_users', 'channels.matrix.allowed_users',
  'agents', 'routes',
  'agent.persona', 'agent.name', 'agent.history_tokens', 'agent.history_messages', 'agent.turn_timeout_s',
  'memory.prompt_chars',
  'llm.model', 'llm.fallback_models', 'llm.temperature', 'llm.max_tokens', 'llm.max_loops', 'llm.daily_token_budget', 'llm.prices',
  'tools.timeout_s', 'tools.timeouts', 'tools.output_chars',
  'tools.http.allow_hosts', 'tools.http.allow_private', 'tools.http.max_bytes', 'tools.http.max_redirects',
  'approval', 'trust',
  'scheduler.jobs', 'scheduler.unattended_tools',
  'log.level',
  // Who is who in a household; turning the household on or off (the whole section) moves memory: a restart.
  'people',
];

export interface ConfigChanges {
  /** Key paths applied to the running daemon. */
  live: string[];
  /** Key paths that differ but take effect only after a restart, each with why when it is not the obvious. */
  restart: string[];
}

/**
 * The key paths where `next` differs from `current`: the deepest mapping key whose value differs (a list is one
 * value). `agents.helper.model`, `llm.model`, `channels.telegram.allowed_users`.
 */
export function changedKeys(current: unknown, next: unknown, at: readonly string[] = []): string[] {
  if (isMapping(current) && isMapping(next)) {
    const keys = new Set([...Object.keys(current), ...Object.keys(next)]);
    return [...keys].flatMap((key) => changedKeys(own(current, key), own(next, key), [...at, key]));
  }
  return isDeepStrictEqual(current, next) ? [] : [at.join('.')];
}

/**
 * Splits the changed keys: live when a LIVE_KEYS entry covers the key and the new value brings no secret the daemon
 * does not know yet (its redaction is built once, so a new secret waits for a restart rather than reach a log).
 */
export function classifyChanges(current: Config, next: Config, knownSecrets: readonly string[], nextSecrets: readonly string[]): ConfigChanges {
  const fresh = nextSecrets.filter((secret) => !knownSecrets.includes(secret));
  const live: string[] = [];
  const restart: string[] = [];
  for (const key of changedKeys(current, next)) {
    const covered = key !== 'people' && LIVE_KEYS.some((entry) => key === entry || key.startsWith(`${entry}.`));
    const text = JSON.stringify(valueAt(next, key.split('.')) ?? null);
    if (covered && !fresh.some((secret) => text.includes(secret))) live.push(key);
    else restart.push(key);
  }
  return { live, restart };
}

/** Writes the new values of `keys` into `target` in place (a key gone from `next` is removed). */
export function applyChanges(target: Config, next: Config, keys: readonly string[]): void {
  for (const key of keys) {
    const path = key.split('.');
    const last = path.at(-1) ?? '';
    let parent: unknown = target;
    for (const part of path.slice(0, -1)) {
      if (!isMapping(parent)) break;
      if (!isMapping(own(parent, part))) define(parent, part, {});
      parent = own(parent, part);
    }
    if (!isMapping(parent)) continue;
    const value = valueAt(next, path);
    if (value === undefined) delete parent[last];
    else define(parent, last, structuredClone(value));
  }
}

/** Own keys only: `__proto__` or `constructor` in a record is a name, never the way to a prototype. */
function own(target: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(target, key) ? target[key] : undefined;
}

/** A key of a record (an agent's name, a preset's) is the person's text: `__proto__` stays a plain key. */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let current = root;
  for (const part of path) {
    if (!isMapping(current) || !Object.hasOwn(current, part)) return undefined;
    current = current[part];
  }
  return current;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** What `familiar status` shows about the config: when it was read, what waits for a restart, a refused reload. */
export interface ReloadStatus {
  path: string;
  loadedAt: string;
  reloads: number;
  /** Keys changed on disk that apply only after a restart (the running daemon still uses the old values). */
  pendingRestart: string[];
  last?: { at: string; reason: string; applied: string[]; restart: string[] };
  /** The last reload that was refused (the daemon runs on the config it had); cleared by a good one. */
  refused?: { at: string; reason: string; problems: string[] };
}
