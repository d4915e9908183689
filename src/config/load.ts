import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import type { ZodError } from 'zod/v3';
import { ConfigError } from '../errors.js';
import { configSchema, type Config } from './schema.js';
import { urlSecrets } from './url-secrets.js';

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
}

export interface LoadConfigOptions {
  /** Explicit --config; else $FAMILIAR_CONFIG; else ./config.yaml; else config.example.yaml. */
  configPath?: string | undefined;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export const EXAMPLE_CONFIG_PATH = fileURLToPath(new URL('../../config.example.yaml', import.meta.url));

const SECRET_KEY = /(token|api_key|apikey|password|secret|authorization|cookie)$/i;

/** Contract: throws ConfigError (with the key path) for anything wrong; this is the only reader of process.env. */
export function loadConfig(options: LoadConfigOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const explicit = options.configPath ?? (env.FAMILIAR_CONFIG || undefined);
  let file = path.resolve(cwd, explicit ?? 'config.yaml');
  let source: LoadedConfig['source'] = 'file';
  if (!existsSync(file)) {
    if (explicit !== undefined) throw new ConfigError('', `config file ${file} does not exist`);
    file = EXAMPLE_CONFIG_PATH;
    source = 'example';
  }
  const text = readFileSync(file, 'utf8');
  const parsed = parseConfigText(text, file, env);
  const secrets = collectSecrets(parsed);
  const config = validateConfig(parsed);
  // Relative folders are relative to the config file, or to the working directory for the built-in defaults.
  const base = source === 'file' ? path.dirname(file) : cwd;
  config.data_dir = path.resolve(base, config.data_dir);
  config.memory_dir = path.resolve(base, config.memory_dir);
  config.skills_dir = path.resolve(base, config.skills_dir);
  return { config, path: file, source, secrets };
}

export function parseConfigText(text: string, file: string, env: NodeJS.ProcessEnv): unknown {
  let raw: unknown;
  try {
    raw = parseYaml(text, { prettyErrors: true });
  } catch (error) {
    const where = error instanceof YAMLParseError && error.linePos ? ` line ${error.linePos[0].line}` : '';
    throw new ConfigError('', `${file}${where} is not valid YAML`, { cause: error });
  }
  if (raw === null || raw === undefined) raw = {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new ConfigError('', `${file} must be a YAML mapping`);
  return interpolate(raw, env, []);
}

/** Validates an already-parsed and interpolated object; throws ConfigError naming the first bad key. */
export function validateConfig(raw: unknown): Config {
  const result = configSchema.safeParse(raw);
  if (!result.success) throw zodToConfigError(result.error, raw);
  return result.data;
}

function zodToConfigError(error: ZodError, raw: unknown): ConfigError {
  const issue = error.issues[0];
  if (!issue) return new ConfigError('', 'invalid');
  let keyPath = issue.path.map(String).join('.');
  let reason = issue.message;
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    keyPath = keyPath ? `${keyPath}.${key}` : key;
    reason = 'unknown key (misspelt? see config.example.yaml)';
  } else if (issue.code === 'invalid_type') {
    const value = valueAt(raw, issue.path);
    reason = value === undefined ? `is required (${issue.expected})` : `must be ${issue.expected}, not ${describeValue(value)}`;
  }
  return new ConfigError(keyPath, reason, { cause: error });
}

const ENV_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** `${NAME}` and `${NAME:-default}` in string values; an unset variable becomes empty (that part is then disabled). */
function interpolate(value: unknown, env: NodeJS.ProcessEnv, keyPath: string[]): unknown {
  if (typeof value === 'string') {
    return value.replace(ENV_REFERENCE, (_match, name: string, fallback: string | undefined) => {
      const found = env[name];
      return found !== undefined && found !== '' ? found : (fallback ?? '');
    });
  }
  if (Array.isArray(value)) return value.map((item, index) => interpolate(item, env, [...keyPath, String(index)]));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = interpolate(item, env, [...keyPath, key]);
    return out;
  }
  return value;
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
