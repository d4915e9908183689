import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { tempDir } from '../helpers/app.js';
import { captureIo } from '../helpers/io.js';

const CONFIG = `# my assistant
llm:
  base_url: http://127.0.0.1:9/v1   # the local server
  api_key: \${LLM_KEY}
  model: small                      # cheap one
channels:
  telegram:
    token: \${BOT_TOKEN}
    allowed_users: [1]   # me
tools:
  http:
    presets:
      home: { base_url: "https://user:hunter2-pass@home.example/api", headers: { Authorization: "Bearer ha-token-123456" } }
`;

function setup(config = CONFIG, env = 'LLM_KEY=sk-local-secret-1234\nBOT_TOKEN=123456:bot-secret-token\n') {
  const dir = tempDir();
  const file = path.join(dir, 'config.yaml');
  writeFileSync(file, config);
  writeFileSync(path.join(dir, '.env'), env, { mode: 0o600 });
  const run = async (...args: string[]) => {
    const io = captureIo();
    const code = await runCli(['config', ...args, '--config', file], io);
    return { code, out: io.out(), err: io.err() };
  };
  return { dir, file, run };
}

describe('familiar config validate', () => {
  it('says the config is valid, and names the variables set nowhere', async () => {
    const { run, file } = setup(CONFIG, 'LLM_KEY=sk-local-secret-1234\n');
    const result = await run('validate');
    expect(result.code).toBe(0);
    expect(result.out).toBe(`✓ ${file} is valid (with ${path.join(path.dirname(file), '.env')})\n! channels.telegram.token: \${BOT_TOKEN} is not set, so it is empty\n`);
  });

  it('reports every problem at once, the schema\'s and the start checks\' (routes, http), exit 2', async () => {
    const { run } = setup('llm:\n  max_loops: many\n  modle: x\nroutes:\n  - { channel: telegram, agent: helper }\nhttp:\n  listen: 0.0.0.0:8484\n');
    const schema = await run('validate');
    expect(schema.code).toBe(2);
    expect(schema.err).toBe('config: llm.max_loops: must be number, not the text "many"\nconfig: llm.modle: unknown key; did you mean "model"?\n');
    const { run: second } = setup('routes:\n  - { channel: telegram, agent: helper }\nhttp:\n  listen: 0.0.0.0:8484\n');
    const start = await second('validate');
    expect(start.code).toBe(2);
    expect(start.err).toMatch(/^config: routes\.0\.agent: no agent named "helper" in agents \(declared: none\)\nconfig: http\.token: is required when http\.listen \(0\.0\.0\.0:8484\) is not a loopback address/);
  });
});

describe('familiar config validate and declared jobs', () => {
  it('refuses a declared job the daemon would refuse at start and on reload', async () => {
    const { run } = setup('scheduler:\n  jobs:\n    - { id: morning, cron: "0 25 * * *", prompt: hello }\n');
    const result = await run('validate');
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^config: scheduler\.jobs\.0\.cron: /);
  });
});

describe('familiar config get', () => {
  it('prints a value as loaded, a section as YAML, and --json', async () => {
    const { run } = setup();
    expect(await run('get', 'llm.model')).toEqual({ code: 0, out: 'small\n', err: '' });
    expect((await run('get', 'channels.telegram.allowed_users')).out).toBe('- "1"\n');
    expect(JSON.parse((await run('get', 'llm', '--json')).out)).toMatchObject({ model: 'small', max_loops: 10 });
  });

  it('masks secrets: secret keys, header values, credentials in URLs, whatever level is asked', async () => {
    const { run } = setup();
    const outputs = [await run('get'), await run('get', 'llm'), await run('get', 'llm.api_key'), await run('get', 'tools.http', '--json'), await run('get', 'channels', '--json')];
    for (const output of outputs) {
      expect(output.code).toBe(0);
      for (const secret of ['sk-local-secret-1234', 'bot-secret-token', 'hunter2-pass', 'ha-token-123456']) expect(output.out).not.toContain(secret);
    }
    expect((await run('get', 'llm.api_key')).out).toBe('[MASKED]\n');
    expect((await run('get', 'tools.http.presets.home.base_url')).out).toBe('https://[REDACTED]@home.example/api\n');
  });

  it('answers a misspelt key with a did-you-mean (exit 2) and an unset one with exit 1', async () => {
    const { run } = setup();
    expect(await run('get', 'llm.modle')).toEqual({ code: 2, out: '', err: 'config: llm.modle: unknown key; did you mean "model"?\n' });
    expect(await run('get', 'llm.temperature')).toEqual({ code: 1, out: '', err: 'familiar config: llm.temperature is not set\n' });
  });
});

describe('familiar config set', () => {
  it('changes the value in place, keeping every comment and the rest of the file byte for byte', async () => {
    const { run, file } = setup();
    const result = await run('set', 'llm.model', 'large');
    expect(result.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(CONFIG.replace('model: small ', 'model: large '));
    expect(await run('set', 'channels.telegram.allowed_users', '[1, 2]')).toMatchObject({ code: 0 });
    expect(readFileSync(file, 'utf8')).toContain('allowed_users: [ 1, 2 ]   # me');
    expect((await run('get', 'channels.telegram.allowed_users', '--json')).out).toBe('[\n  "1",\n  "2"\n]\n');
  });

  it('adds a key that is not there yet, keeping the comments', async () => {
    const { run, file } = setup();
    expect((await run('set', 'agent.max_concurrent_turns', '2')).code).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('# my assistant');
    expect(text).toContain('# the local server');
    expect(text).toMatch(/agent:\n {2}max_concurrent_turns: 2/);
  });

  it('refuses a value that does not validate, and leaves the file as it was', async () => {
    const { run, file } = setup();
    const result = await run('set', 'llm.max_loops', 'many');
    expect(result).toEqual({ code: 2, out: '', err: 'familiar config: not changed; llm.max_loops = many would make the config invalid:\nconfig: llm.max_loops: must be number, not the text "many"\n' });
    expect((await run('set', 'routes', '[{channel: telegram, agent: nobody}]')).err).toMatch(/routes\.0\.agent: no agent named "nobody"/);
    expect((await run('set', 'llm.modle', 'x')).err).toBe('config: llm.modle: unknown key; did you mean "model"?\n');
    expect(readFileSync(file, 'utf8')).toBe(CONFIG);
  });

  it('never writes a secret into config.yaml: it goes to .env (0600) and config.yaml names it', async () => {
    const { run, file, dir } = setup();
    const token = '987654:a-brand-new-bot-token';
    const result = await run('set', 'channels.telegram.token', token);
    expect(result.code).toBe(0);
    expect(result.out + result.err).not.toContain(token);
    expect(readFileSync(file, 'utf8')).not.toContain(token);
    const env = readFileSync(path.join(dir, '.env'), 'utf8');
    // The reference already in config.yaml keeps its name.
    expect(env).toContain(`BOT_TOKEN=${token}`);
    expect(env).toContain('LLM_KEY=sk-local-secret-1234');
    expect(statSync(path.join(dir, '.env')).mode & 0o777).toBe(0o600);
    // A new secret gets a name of its own.
    expect((await run('set', 'tools.web_search.api_key', 'tvly-secret-key-42')).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('api_key: ${FAMILIAR_TOOLS_WEB_SEARCH_API_KEY}');
    expect(readFileSync(file, 'utf8')).not.toContain('tvly-secret-key-42');
    expect(readFileSync(path.join(dir, '.env'), 'utf8')).toContain('FAMILIAR_TOOLS_WEB_SEARCH_API_KEY=tvly-secret-key-42');
    expect((await run('get', 'tools.web_search.api_key')).out).toBe('[MASKED]\n');
  });

  it('says how to make a config when there is none', async () => {
    const dir = tempDir();
    const io = captureIo();
    expect(await runCli(['config', 'set', 'llm.model', 'x', '--config', path.join(dir, 'config.yaml')], io)).toBe(1);
    expect(io.err()).toMatch(/there is no .*config\.yaml to change; make it with: familiar init/);
  });
});
