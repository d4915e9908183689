import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDurationSeconds } from '../../src/config/duration.js';
import { EXAMPLE_CONFIG_PATH, loadConfig } from '../../src/config/load.js';
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

  it('reports YAML syntax errors with the line', () => {
    const error = configErrorOf(() => loadConfig({ configPath: write('llm:\n  model: [unclosed\n'), env: {} }));
    expect(error.message).toMatch(/not valid YAML/);
  });

  it('parses durations', () => {
    expect(parseDurationSeconds('24h')).toBe(86400);
    expect(parseDurationSeconds('1h30m')).toBe(5400);
    expect(parseDurationSeconds(90)).toBe(90);
    expect(parseDurationSeconds('2 days')).toBeUndefined();
  });
});
