import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDurationSeconds } from '../../src/config/duration.js';
import { EXAMPLE_CONFIG_PATH, loadConfig } from '../../src/config/load.js';
import { systemTimeZone } from '../../src/config/timezone.js';
import { ConfigError } from '../../src/errors.js';
import { tempDir } from '../helpers/app.js';

function write(text: string): string {
  const dir = tempDir();
  const file = path.join(dir, 'config.yaml');
  writeFileSync(file, text);
  return file;
}

function configErrorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('config', () => {
  it('interpolates ${ENV} and ${ENV:-default}, and collects secrets', () => {
    const file = write('llm:\n  api_key: ${MY_KEY}\n  model: ${MODEL:-local-model}\nchannels:\n  telegram:\n    token: ${TG}\n');
    const loaded = loadConfig({ configPath: file, env: { MY_KEY: 'sk-abc123', TG: 'tg-token-1' } });
    expect(loaded.config.llm.api_key).toBe('sk-abc123');
    expect(loaded.config.llm.model).toBe('local-model');
    expect(loaded.secrets).toEqual(expect.arrayContaining(['sk-abc123', 'tg-token-1']));
  });

  it('an unset variable leaves the value empty (the part is then disabled)', () => {
    const loaded = loadConfig({ configPath: write('channels:\n  telegram:\n    token: ${NOPE}\n'), env: {} });
    expect(loaded.config.channels.telegram?.token).toBe('');
  });

  it('resolves folders relative to the config file', () => {
    const file = write('data_dir: ./d\n');
    const loaded = loadConfig({ configPath: file, env: {} });
    expect(loaded.config.data_dir).toBe(path.join(path.dirname(file), 'd'));
  });

  it('falls back to config.example.yaml when no config.yaml exists', () => {
    const dir = tempDir();
    const loaded = loadConfig({ cwd: dir, env: {} });
    expect(loaded.source).toBe('example');
    expect(loaded.path).toBe(EXAMPLE_CONFIG_PATH);
    expect(loaded.config.data_dir).toBe(path.join(dir, 'data'));
    expect(loaded.config.llm.max_loops).toBe(10);
  });

  it('the example does not impose its own time zone: the default is the machine\'s', () => {
    const loaded = loadConfig({ cwd: tempDir(), env: {} });
    expect(loaded.config.timezone).toBe(systemTimeZone());
  });

  it('FAMILIAR_CONFIG names the file when --config is absent', () => {
    const file = write('llm:\n  model: from-env-file\n');
    expect(loadConfig({ cwd: tempDir(), env: { FAMILIAR_CONFIG: file } }).config.llm.model).toBe('from-env-file');
  });

  it.each([
    ['llm:\n  max_loops: 0\n', 'llm.max_loops', /too small|>=1|greater than or equal to 1/],
    ['tools:\n  web_search:\n    provider: bing\n', 'tools.web_search.provider', /tavily|exa|searxng/],
    ['scheduler:\n  catch_up_window: soon\n', 'scheduler.catch_up_window', /not a duration/],
    ['llm: [1, 2]\n', 'llm', /mapping|object/i],
    ['timezone: Nowhere/City\n', 'timezone', /IANA/],
    ['agent:\n  historytokens: 5\n', 'agent.historytokens', /unknown key/],
    ['llm:\n  base_url: not a url\n', 'llm.base_url', /URL/i],
  ])('names the key path for %j', (text, keyPath, reason) => {
    const error = configErrorOf(() => loadConfig({ configPath: write(text), env: {} }));
    expect(error.keyPath).toBe(keyPath);
    expect(error.message).toMatch(reason);
    expect(error.message.startsWith(`config: ${keyPath}: `)).toBe(true);
  });

  it('reports YAML syntax errors with the line and column and the parser\'s reason', () => {
    const file = write('llm:\n  model: gpt\n   max_loops: 3\n');
    const error = configErrorOf(() => loadConfig({ configPath: file, env: {} }));
    expect(error.message).toMatch(new RegExp(`^config: ${file.replaceAll('.', '\\.')}:2:10: not valid YAML: Nested mappings`));
    expect(error.message.split('\n').every((line) => line.startsWith('config: '))).toBe(true);
  });

  it('reports a duplicated key as a YAML error with its line', () => {
    const error = configErrorOf(() => loadConfig({ configPath: write('llm:\n  model: a\n  model: b\n'), env: {} }));
    expect(error.message).toMatch(/:3:\d+: not valid YAML: .*unique/i);
  });

  it('reports every problem at once, one line each', () => {
    const text = 'llm:\n  max_loops: many\n  modle: gpt\nagent:\n  turn_timeout_s: -1\ntimezone: Nowhere/City\n';
    const error = configErrorOf(() => loadConfig({ configPath: write(text), env: {} }));
    const lines = error.message.split('\n');
    expect(lines).toHaveLength(4);
    expect(lines).toEqual(expect.arrayContaining([
      'config: llm.max_loops: must be number, not the text "many"',
      'config: llm.modle: unknown key; did you mean "model"?',
      expect.stringMatching(/^config: agent\.turn_timeout_s: /),
      expect.stringMatching(/^config: timezone: not an IANA time zone/),
    ]));
    expect(error.problems).toHaveLength(4);
  });

  it.each([
    ['agent:\n  historytokens: 5\n', 'agent.historytokens', 'unknown key; did you mean "history_tokens"?'],
    ['channels:\n  telegram:\n    tokn: x\n', 'channels.telegram.tokn', 'unknown key; did you mean "token"?'],
    ['llm:\n  max-loops: 3\n', 'llm.max-loops', 'unknown key; did you mean "max_loops"?'],
    ['llm:\n  basurl: http://x\n', 'llm.basurl', 'unknown key; did you mean "base_url"?'],
    ['telegram:\n  token: x\n', 'telegram', 'unknown key here; "telegram" belongs under channels'],
    ['llm:\n  completely_else: 1\n', 'llm.completely_else', 'unknown key (see config.example.yaml for the keys)'],
  ])('suggests the key meant for %j', (text, keyPath, reason) => {
    const error = configErrorOf(() => loadConfig({ configPath: write(text), env: {} }));
    expect(error.message).toBe(`config: ${keyPath}: ${reason}`);
  });

  it.each([
    ['tools:\n  sandbox:\n    user: "2000"\n', 'must differ in both uid and gid from tools.sandbox.user (2000): the guest must not own, or share a group with, the person\'s files'],
    ['tools:\n  sandbox:\n    user: "1000:2000"\n', 'must differ in both uid and gid from tools.sandbox.user (1000:2000): the guest must not own, or share a group with, the person\'s files'],
    ['tools:\n  sandbox:\n    guest_user: nobody\n', 'a numeric uid:gid, e.g. "2000:2000"'],
  ])('refuses a sandbox guest that could own or share the person\'s files: %j', (text, reason) => {
    const error = configErrorOf(() => loadConfig({ configPath: write(text), env: {} }));
    expect(error.message).toBe(`config: tools.sandbox.guest_user: ${reason}`);
  });

  it('names an unset variable where it breaks a value, instead of "Invalid url" or the text ""', () => {
    const file = write('llm:\n  base_url: ${LLM_URL}\n  max_loops: ${LOOPS}\n');
    const error = configErrorOf(() => loadConfig({ configPath: file, env: {} }));
    const envFile = path.join(path.dirname(file), '.env');
    expect(error.message.split('\n').sort()).toEqual([
      `config: llm.base_url: \${LLM_URL} is not set (put LLM_URL=… in ${envFile}, or export it)`,
      `config: llm.max_loops: \${LOOPS} is not set (put LOOPS=… in ${envFile}, or export it)`,
    ]);
  });

  it('records unset variables that disable a part, but not ${NAME:-} (empty on purpose)', () => {
    const loaded = loadConfig({ configPath: write('channels:\n  telegram:\n    token: ${TG_TOKEN}\nhttp:\n  listen: ${LISTEN:-}\n'), env: {} });
    expect(loaded.unset).toEqual([{ key: 'channels.telegram.token', variable: 'TG_TOKEN' }]);
  });

  it('reads .env beside the config file; a variable set in the environment wins', () => {
    const file = write('llm:\n  api_key: ${MY_KEY}\n  model: ${MODEL}\n  base_url: ${URL:-http://127.0.0.1:1/v1}\n');
    writeFileSync(path.join(path.dirname(file), '.env'), '# secrets\nMY_KEY=sk-from-dotenv\nMODEL="from dotenv"\nURL=http://127.0.0.1:2/v1\n');
    const loaded = loadConfig({ configPath: file, env: { MODEL: 'from-env', URL: '' } });
    expect(loaded.config.llm.api_key).toBe('sk-from-dotenv');
    expect(loaded.config.llm.model).toBe('from-env');
    // Set but empty in the environment: .env's value is used.
    expect(loaded.config.llm.base_url).toBe('http://127.0.0.1:2/v1');
    expect(loaded.secrets).toContain('sk-from-dotenv');
    expect(loaded.envFile).toBe(path.join(path.dirname(file), '.env'));
    expect(loaded.unset).toEqual([]);
  });

  it('reads .env from the working directory while there is no config.yaml yet', () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, '.env'), 'OPENAI_API_KEY=sk-only-in-dotenv\n');
    const loaded = loadConfig({ cwd: dir, env: {} });
    expect(loaded.source).toBe('example');
    expect(loaded.config.llm.api_key).toBe('sk-only-in-dotenv');
  });

  it('a missing --config file says how to make one', () => {
    const error = configErrorOf(() => loadConfig({ configPath: path.join(tempDir(), 'nope.yaml'), env: {} }));
    expect(error.message).toMatch(/^config: config file .*nope\.yaml does not exist \(make one with: familiar init --config .*nope\.yaml\)$/);
  });

  it('parses durations', () => {
    expect(parseDurationSeconds('24h')).toBe(86400);
    expect(parseDurationSeconds('1h30m')).toBe(5400);
    expect(parseDurationSeconds(90)).toBe(90);
    expect(parseDurationSeconds('2 days')).toBeUndefined();
  });
});
