import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { loadConfig } from '../../src/config/load.js';
import { startSignalCliServer, type FakeSignalCli } from '../fakes/signal-cli-server.js';
import { tempDir } from '../helpers/app.js';
import { captureIo } from '../helpers/io.js';

describe('familiar init --yes with Signal flags', () => {
  let signal: FakeSignalCli;
  beforeAll(async () => {
    signal = await startSignalCliServer();
  });
  afterAll(async () => {
    await signal.close();
  });

  const init = async (dir: string, ...flags: string[]) => {
    const io = captureIo();
    const code = await runCli(['init', '--config', path.join(dir, 'config.yaml'), '--yes', '--no-sandbox', '--no-telegram', '--no-discord', '--provider', 'custom', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm', '--skip-llm-test', ...flags], io);
    return { code, out: io.out(), err: io.err() };
  };

  it('writes channels.signal from --signal-account, --signal-url and --signal-user, and finds the daemon', async () => {
    const dir = tempDir();
    const result = await init(dir, '--signal-account', '+4915100000001', '--signal-url', signal.url, '--signal-user', '+4917000000001', '--signal-user', '22222222-2222-4222-8222-222222222222');
    expect(result.code, result.out + result.err).toBe(0);
    expect(result.out + result.err).toContain(`signal-cli answers at ${signal.url}`);
    const loaded = loadConfig({ configPath: path.join(dir, 'config.yaml'), env: {} });
    expect(loaded.config.channels.signal).toEqual({ url: signal.url, account: '+4915100000001', allowed_users: ['+4917000000001', '22222222-2222-4222-8222-222222222222'] });
  });

  it('refuses a --signal-user that is neither a number nor a UUID, naming the flag', async () => {
    const result = await init(tempDir(), '--signal-account', '+4915100000001', '--signal-user', 'bob');
    expect(result.code).not.toBe(0);
    expect(result.err + result.out).toContain('--signal-user bob: a number in international form (+4917…) or a Signal UUID');
  });
});
