import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';
import type { ZodError, ZodTypeAny } from 'zod/v3';
import { ConfigError, type ConfigProblem } from '../errors.js';
import { readEnvFile } from './env-file.js';
import { resolveFolders, type Relocation } from './folders.js';
import { configSchema, configSchemaFor, type Config } from './schema.js';
import { urlSecrets } from './url-secrets.js';
import { unknownKeyReason } from './suggest.js';

export interface LoadedConfig {
  config: Config;
  /** The file the config came from. */
  path: string;
  /** `example` when no config file existed and config.example.yaml's defaults were used. */
  source: 'file' | 'example';
  /**
   * Every secret value found in the config, for redaction in logs, tool results, the database and approval
   * questions: values under secret-looking keys and in `headers`/`env`, and the credentials in any URL.
   */
  secrets: string[];
  /** The `.env` file read beside the config (its variables fill `${NAME}` where the environment has none). */
  envFile?: string;
  /** `${NAME}` references whose variable is set neither in the environment nor in `.env` (and has no default). */
  unset?: UnsetReference[];
  /** Folders configured inside Familiar's own installation, used from `data_dir` instead (see folders.ts). */
  relocated?: Relocation[];
  /** Whether `timezone` was written in the config or is the machine's (the default). */
  timezoneSource?: 'config' | 'machine';
}

export interface UnsetReference {
  /** The key whose value names the variable, e.g. `channels.telegram.token`. */
  key: string;
  variable: string;
}

export interface LoadConfigOptions {
  /** Explicit --config; else $FAMILIAR_CONFIG; else ./config.yaml; else config.example.yaml. */
  configPath?: string | undefined;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** The config's text instead of the file's: a change checked before it is written (`familiar config set`). */
  text?: string;
}

export const EXAMPLE_CONFIG_PATH = fileURLToPath(new URL('../../config.example.yaml', import.meta.url));

const SECRET_KEY = /(token|api_key|apikey|password|secret|authorization|cookie)$/i;

/** Where `familiar init` writes and every command reads: --config, else $FAMILIAR_CONFIG, else ./config.yaml. */
export function configFilePath(options: LoadConfigOptions = {}): { file: string; explicit: boolean } {
  const env = options.env ?? process.env;
  const explicit = options.configPath ?? (env.FAMILIAR_CONFIG || undefined);
  return { file: path.resolve(options.cwd ?? process.cwd(), explicit ?? 'config.yaml'), explicit: explicit !== undefined };
}

/**
 * Contract: throws ConfigError (every problem found, each with its key path) for anything wrong; this is the
 * only reader of process.env. Variables come from the environment, then from `.env` beside the config file:
 * a variable set (non-empty) in the environment wins.
 */
export function loadConfig(options: LoadConfigOptions = {}): LoadedConfig {
  const cwd = options.cwd ?? process.cwd();
  const where = configFilePath(options);
  let file = where.file;
  let source: LoadedConfig['source'] = 'file';
  // `.env` sits beside config.yaml, also while config.yaml does not exist yet (the example's defaults).
  const envFile = path.join(path.dirname(file), '.env');
  if (!existsSync(file)) {
    if (where.explicit) throw new ConfigError('', `config file ${file} does not exist (make one with: familiar init --config ${file})`);
    file = EXAMPLE_CONFIG_PATH;
    source = 'example';
  }
  const dotenv = readEnvFile(envFile);
  const env = mergeEnv(options.env ?? process.env, dotenv.values);
  const text = options.text ?? readFileSync(file, 'utf8');
  const unset: UnsetReference[] = [];
  const parsed = parseConfigText(text, file, env, unset);
  const secrets = collectSecrets(parsed);
  const config = validateConfig(parsed, { unset, envFile: dotenv.file ?? envFile });
  // Relative folders are relative to the config file, or to the working directory for the built-in defaults.
  const base = source === 'file' ? path.dirname(file) : cwd;
  const folders = resolveFolders(config, base);
  const timezoneSource = Object.hasOwn(parsed as object, 'timezone') ? 'config' : 'machine';
  return {
    config, path: file, source, secrets, unset, timezoneSource,
    ...(dotenv.file !== undefined ? { envFile: dotenv.file } : {}),
    ...(folders.length > 0 ? { relocated: folders } : {}),
  };
}

/**
 * The config file parsed and interpolated but not validated: what `familiar status` reads to reach a daemon while
 * the file on disk has a mistake (the daemon refused it and runs on). Throws ConfigError for a YAML syntax error.
 */
export function loadRawConfig(options: LoadConfigOptions = {}): Record<string, unknown> {
  const where = configFilePath(options);
  const file = existsSync(where.file) ? where.file : EXAMPLE_CONFIG_PATH;
  const env = mergeEnv(options.env ?? process.env, readEnvFile(path.join(path.dirname(where.file), '.env')).values);
  return parseConfigText(readFileSync(file, 'utf8'), file, env) as Record<string, unknown>;
}

/** The environment wins where it sets a variable to something; `.env` fills the rest. */
function mergeEnv(env: NodeJS.ProcessEnv, dotenv: Record<string, string>): NodeJS.ProcessEnv {
  const merged: NodeJS.ProcessEnv = { ...dotenv };
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && (value !== '' || !Object.hasOwn(dotenv, name))) merged[name] = value;
  }
  return merged;
}

/**
 * Parses YAML and fills `${NAME}` references. Every syntax error is reported with its line and column;
 * references that stay empty are recorded in `unset` (when given).
 */
export function parseConfigText(text: string, file: string, env: NodeJS.ProcessEnv, unset: UnsetReference[] = []): unknown {
  const document = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (document.errors.length > 0) {
    throw ConfigError.of(document.errors.map((error) => {
      const where = error.linePos?.[0] ? `:${error.linePos[0].line}:${error.linePos[0].col}` : '';
      // prettyErrors appends " at line L, column C:" and a code excerpt: the location is already in front.
      const message = (error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
      return { keyPath: '', reason: `${file}${where}: not valid YAML: ${message}` };
    }), { cause: document.errors[0] });
  }
  let raw: unknown = document.toJS();
  if (raw === null || raw === undefined) raw = {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new ConfigError('', `${file} must be a YAML mapping of keys (see config.example.yaml)`);
  return interpolate(raw, env, [], unset);
}

export interface ValidateOptions {
  unset?: readonly UnsetReference[];
  envFile?: string;
}

/** Validates an already-parsed and interpolated object; throws ConfigError naming every bad key. */
export function validateConfig(raw: unknown, options: ValidateOptions = {}): Config {
  // Built for this call and let go with it: the daemon holds no schema between loads (see schema.ts).
  const result = configSchemaFor(raw).safeParse(raw);
  // The whole schema for the problems: where an unknown key belongs may be a section this config does not have.
  if (!result.success) throw ConfigError.of(zodProblems(configSchema(), result.error, raw, options), { cause: result.error });
  return result.data;
}

function zodProblems(schema: ZodTypeAny, error: ZodError, raw: unknown, options: ValidateOptions): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const issue of error.issues) {
    const keyPath = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        problems.push({ keyPath: keyPath ? `${keyPath}.${key}` : key, reason: unknownKeyReason(schema, issue.path, key) });
      }
      continue;
    }
    const missing = options.unset?.find((reference) => reference.key === keyPath);
    if (missing) {
      problems.push({ keyPath, reason: unsetReason(missing.variable, options.envFile) });
      continue;
    }
    let reason = issue.message;
    if (issue.code === 'invalid_type') {
      const value = valueAt(raw, issue.path);
      reason = value === undefined ? `is required (${issue.expected})` : `must be ${issue.expected}, not ${describeValue(value)}`;
    }
    problems.push({ keyPath, reason });
  }
  return problems.length > 0 ? problems : [{ keyPath: '', reason: 'invalid' }];
}

/** What to say about a `${NAME}` that is set nowhere. */
export function unsetReason(variable: string, envFile?: string): string {
  return `\${${variable}} is not set (put ${variable}=… in ${envFile ?? '.env beside config.yaml'}, or export it)`;
}

const ENV_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * `${NAME}` and `${NAME:-default}` in string values. An unset variable becomes empty (a part whose credentials
 * are empty is disabled) and is recorded, so that what it disabled or broke can be named.
 */
function interpolate(value: unknown, env: NodeJS.ProcessEnv, keyPath: string[], unset: UnsetReference[]): unknown {
  if (typeof value === 'string') {
    return value.replace(ENV_REFERENCE, (_match, name: string, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined && found !== '') return found;
      // `${NAME:-}` says "empty is fine"; a bare `${NAME}` expects a value.
      if (fallback === undefined) unset.push({ key: keyPath.join('.'), variable: name });
      return fallback ?? '';
    });
  }
  if (Array.isArray(value)) return value.map((item, index) => interpolate(item, env, [...keyPath, String(index)], unset));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = interpolate(item, env, [...keyPath, key], unset);
    return out;
  }
  return value;
}

/**
 * Whether a value at this key path is a secret by the same rule `secrets` are collected with: a secret-looking key,
 * or anything under `headers` or `env`. Such values belong in `.env`, named in config.yaml as `${NAME}`.
 */
export function isSecretKeyPath(keys: readonly string[]): boolean {
  const last = keys.at(-1) ?? '';
  return SECRET_KEY.test(last) || keys.slice(0, -1).some((key) => key === 'headers' || key === 'env');
}

function collectSecrets(value: unknown, parentKey = '', insideHeaders = false, out: string[] = []): string[] {
  if (typeof value === 'string') {
    if ((insideHeaders || SECRET_KEY.test(parentKey)) && value.length >= 4) out.push(value);
    // Any URL: a preset's base_url, an MCP url, SearXNG, the LLM's base_url, an argument in an MCP command.
    for (const secret of urlSecrets(value)) if (secret.length >= 4) out.push(secret);
    // A header like "Bearer abc123" also leaks as its bare token.
    const bearer = /^(?:bearer|token|basic)\s+(\S{4,})$/i.exec(value);
    if (bearer?.[1] && insideHeaders) out.push(bearer[1]);
    return out;
  }
  if (Array.isArray(value)) {
    for (const item of value) collectSecrets(item, parentKey, insideHeaders, out);
    return out;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      collectSecrets(item, key, insideHeaders || key === 'headers' || key === 'env', out);
    }
  }
  return [...new Set(out)];
}

function valueAt(root: unknown, keys: readonly PropertyKey[]): unknown {
  let current = root;
  for (const key of keys) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `the text "${value.length > 40 ? `${value.slice(0, 40)}…` : value}"`;
  if (typeof value === 'object') return 'a mapping';
  return `${typeof value} ${String(value)}`;
}
