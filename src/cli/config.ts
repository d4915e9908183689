import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isCollection, isScalar, parse as parseYaml, parseDocument, stringify, type Document } from 'yaml';
import { checkRoutes } from '../agent/profiles.js';
import { configFilePath, isSecretKeyPath, loadConfig, type LoadedConfig } from '../config/load.js';
import { configSchema } from '../config/schema.js';
import { knownKeysAt, unknownKeyReason } from '../config/suggest.js';
import { ConfigError, type ConfigProblem } from '../errors.js';
import { checkHttpConfig } from '../http/part.js';
import { checkSchedulerConfig } from '../scheduler/part.js';
import { renderEnv } from '../init/render.js';
import { writeAtomically } from '../init/files.js';
import { MASK, maskSecretKeys } from '../lib/mask.js';
import { redactSecretValues } from '../log.js';
import { parseCommandArgs } from './args.js';
import type { Command, CommandContext } from './context.js';
import { optionsOf } from './spec.js';

const USAGE = `usage: familiar config validate
       familiar config get [KEY.PATH]        e.g. llm.model, channels.telegram.allowed_users
       familiar config set KEY.PATH VALUE    e.g. llm.model gpt-4o, agent.max_concurrent_turns 2, channels.telegram.allowed_users "[123, 456]"
`;

/** `familiar config validate|get|set`: check, read and change config.yaml (secrets masked; secrets written to .env). */
export const configCommand: Command = async (context) => {
  const [action, ...rest] = parseCommandArgs(context.args, optionsOf('config')).positionals;
  switch (action) {
    case 'validate':
      return Promise.resolve(validate(context));
    case 'get':
      return Promise.resolve(get(context, rest));
    case 'set':
      return Promise.resolve(set(context, rest));
    default:
      context.io.stderr.write(USAGE);
      return Promise.resolve(2);
  }
};

/** Every problem a start would meet: the file, the schema, then what the daemon checks before it starts. */
export function configProblems(load: () => LoadedConfig): { loaded?: LoadedConfig; problems: ConfigProblem[] } {
  let loaded: LoadedConfig;
  try {
    loaded = load();
  } catch (error) {
    if (error instanceof ConfigError) return { problems: [...error.problems] };
    throw error;
  }
  const problems: ConfigProblem[] = [];
  const checks = [
    () => checkRoutes(loaded.config),
    // Declared jobs (schedules, time zones): a start and a reload refuse them, so validate says so too.
    () => checkSchedulerConfig(loaded.config),
    () => (loaded.config.http.listen ? checkHttpConfig(loaded.config.http.listen, loaded.config.http.token) : undefined),
  ];
  for (const check of checks) {
    try {
      check();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems);
    }
  }
  return { loaded, problems };
}

function validate(context: CommandContext): number {
  const { loaded, problems } = configProblems(() => loadConfig({ configPath: context.options.config }));
  if (problems.length > 0 || !loaded) throw ConfigError.of(problems);
  const out = context.io.stdout;
  if (context.options.json) {
    out.write(`${JSON.stringify({ valid: true, path: loaded.path, source: loaded.source, env_file: loaded.envFile ?? null, unset: loaded.unset ?? [] }, null, 2)}\n`);
    return 0;
  }
  out.write(loaded.source === 'example'
    ? `✓ no config file at ${configFilePath({ configPath: context.options.config }).file}: the defaults of ${loaded.path} are valid (make yours with: familiar init)\n`
    : `✓ ${loaded.path} is valid${loaded.envFile !== undefined ? ` (with ${loaded.envFile})` : ''}\n`);
  // Not errors: an empty credential turns its part off. Said so the person knows which parts are off and why.
  for (const reference of loaded.unset ?? []) out.write(`! ${reference.key}: \${${reference.variable}} is not set, so it is empty\n`);
  return 0;
}

function get(context: CommandContext, rest: string[]): number {
  if (rest.length > 1) {
    context.io.stderr.write(USAGE);
    return 2;
  }
  const keys = rest[0] !== undefined ? splitKey(rest[0]) : [];
  const unknown = unknownKey(keys);
  if (unknown !== undefined) return refuse(context, unknown);
  const loaded = context.loadConfig();
  let value: unknown = loaded.config;
  for (const key of keys) {
    value = value !== null && typeof value === 'object' && Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
  }
  if (value === undefined) {
    context.io.stderr.write(`familiar config: ${keys.join('.')} is not set\n`);
    return 1;
  }
  // Secrets never leave through this command: known secret values anywhere, and whatever sits under a secret key.
  const shown = isSecretKeyPath(keys) && value !== '' ? MASK : maskSecretKeys(redactSecretValues(value, loaded.secrets));
  const out = context.io.stdout;
  if (context.options.json) out.write(`${JSON.stringify(shown, null, 2)}\n`);
  else if (shown !== null && typeof shown === 'object') out.write(stringify(shown));
  else out.write(`${String(shown)}\n`);
  return 0;
}

function set(context: CommandContext, rest: string[]): number {
  const [key, ...valueWords] = rest;
  if (key === undefined || valueWords.length !== 1) {
    context.io.stderr.write(`familiar config: set needs a key and one value (quote a value with spaces)\n${USAGE}`);
    return 2;
  }
  const keys = splitKey(key);
  const unknown = unknownKey(keys);
  if (unknown !== undefined || keys.length === 0) return refuse(context, unknown ?? { keyPath: key, reason: 'name a key' });
  const file = configFilePath({ configPath: context.options.config }).file;
  if (!existsSync(file)) {
    context.io.stderr.write(`familiar config: there is no ${file} to change; make it with: familiar init${context.options.config ? ` --config ${file}` : ''}\n`);
    return 1;
  }
  const raw = valueWords[0] ?? '';
  let value: unknown = raw === '' ? '' : parseYaml(raw);
  const envFile = path.join(path.dirname(file), '.env');
  const envText = existsSync(envFile) ? readFileSync(envFile, 'utf8') : '';
  const text = readFileSync(file, 'utf8');
  const document = parseDocument(text);
  let secret: { name: string; value: string } | undefined;
  if (isSecretKeyPath(keys) && !/^\$\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\}$/.test(raw)) {
    // The value goes to .env; config.yaml names it. A reference already there keeps its name.
    const current = document.getIn(keys);
    const named = typeof current === 'string' ? /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(current)?.[1] : undefined;
    secret = { name: named ?? `FAMILIAR_${keys.join('_').toUpperCase().replace(/[^A-Z0-9_]/g, '_')}`, value: raw };
    value = `\${${secret.name}}`;
  }
  let nextText: string;
  try {
    nextText = edited(text, document, keys, value);
  } catch (error) {
    return refuse(context, { keyPath: keys.join('.'), reason: `cannot be set here (${(error as Error).message})` });
  }
  const env = secret ? { ...process.env, [secret.name]: secret.value } : process.env;
  const after = checkedChange(context, { file, nextText, env, what: `${keys.join('.')} = ${secret ? MASK : raw}`, command: 'familiar config' });
  if (after === undefined) return 2;
  if (secret) writeAtomically({ path: envFile, text: renderEnv(envText, { [secret.name]: secret.value }), mode: 0o600, secret: true });
  writeAtomically({ path: file, text: nextText, mode: 0o600, secret: false });
  const out = context.io.stdout;
  if (secret) {
    out.write(`set ${keys.join('.')} = \${${secret.name}} in ${file}; the value is in ${envFile} (mode 0600)\n`);
    const shadow = process.env[secret.name];
    if (shadow !== undefined && shadow !== '') context.io.stderr.write(`note: ${secret.name} is also set in this environment, which wins over .env\n`);
  } else out.write(`set ${keys.join('.')} = ${stringify(value, { lineWidth: 0 }).trimEnd()} in ${file}\n`);
  for (const problem of after) context.io.stderr.write(`note: still to fix: ${problem}\n`);
  out.write('A running daemon reloads it now: what can change live applies, what needs a restart is named in its log and in familiar status.\n');
  return 0;
}

/**
 * Checks a changed config.yaml as a start would load it: the change may not add a problem (one already there does not
 * block it). Returns the problems still left (to mention), or undefined when the change is refused (said on stderr).
 * Writing it is the caller's (`writeAtomically`), after any other file it goes with.
 */
export function checkedChange(context: CommandContext, change: { file: string; nextText: string; env?: NodeJS.ProcessEnv; what: string; command: string }): string[] | undefined {
  const before = configProblems(() => loadConfig({ configPath: change.file })).problems.map(formatProblem);
  const after = configProblems(() => loadConfig({ configPath: change.file, env: change.env ?? process.env, text: change.nextText })).problems.map(formatProblem);
  const added = after.filter((problem) => !before.includes(problem));
  if (added.length === 0) return after;
  context.io.stderr.write(`${change.command}: not changed; ${change.what} would make the config invalid:\n${added.join('\n')}\n`);
  return undefined;
}

/**
 * The file with the value at `keys` replaced. A scalar or a flow collection already there is replaced in the text
 * itself, so every other byte stays (comments, their alignment, blank lines); otherwise (a new key, a block list)
 * the yaml Document API writes the file again, which keeps comments but not their alignment.
 */
export function edited(text: string, document: Document, keys: readonly string[], value: unknown): string {
  const node = document.getIn(keys, true);
  if ((isScalar(node) || (isCollection(node) && node.flow === true)) && node.range) {
    const rendered = stringify(value, { collectionStyle: 'flow', lineWidth: 0 }).trimEnd();
    if (!rendered.includes('\n')) {
      const spliced = `${text.slice(0, node.range[0])}${rendered}${text.slice(node.range[1])}`;
      const check = parseDocument(spliced);
      if (check.errors.length === 0 && JSON.stringify(check.getIn(keys)) === JSON.stringify(value)) return spliced;
    }
  }
  document.setIn(keys, value);
  return document.toString();
}

/** `channels.telegram.allowed_users.0` → keys; numbers index lists. */
function splitKey(key: string): string[] {
  return key.split('.').filter((part) => part !== '');
}

/** A key the schema does not have, with the did-you-mean the config loader gives. */
function unknownKey(keys: readonly string[]): ConfigProblem | undefined {
  const schema = configSchema();
  for (let index = 0; index < keys.length; index += 1) {
    const parent = keys.slice(0, index);
    const known = knownKeysAt(schema, parent.map((part) => (/^\d+$/.test(part) ? Number(part) : part)));
    const key = keys[index] ?? '';
    if (known !== undefined && !known.includes(key)) return { keyPath: keys.slice(0, index + 1).join('.'), reason: unknownKeyReason(schema, parent, key) };
  }
  return undefined;
}

function refuse(context: CommandContext, problem: ConfigProblem): number {
  context.io.stderr.write(`${formatProblem(problem)}\n`);
  return 2;
}

function formatProblem(problem: ConfigProblem): string {
  return problem.keyPath ? `config: ${problem.keyPath}: ${problem.reason}` : `config: ${problem.reason}`;
}

