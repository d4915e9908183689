import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { loadConfig } from '../../src/config/load.js';
import { startMatrixServer, type FakeMatrix } from '../fakes/matrix-server.js';
import { tempDir } from '../helpers/app.js';
import { captureIo } from '../helpers/io.js';

describe('familiar init --yes with the Matrix flags', () => {
  let matrix: FakeMatrix;
  beforeAll(async () => {
    matrix = await startMatrixServer();
  });
  afterAll(async () => {
    await matrix.close();
  });

  const init = async (dir: string, ...flags: string[]) => {
    const io = captureIo();
    const code = await runCli(['init', '--config', path.join(dir, 'config.yaml'), '--yes', '--no-sandbox', '--no-telegram', '--no-discord',
      '--provider', 'custom', '--base-url', 'http://127.0.0.1:9/v1', '--api-key', 'sk-x', '--model', 'm', '--skip-llm-test', ...flags], io);
    return { code, out: io.out(), err: io.err() };
  };

  it('checks the token with whoami and writes channels.matrix, the token only in .env', async () => {
    const dir = tempDir();
    const result = await init(dir, '--matrix-homeserver', `${matrix.baseUrl}/`, '--matrix-token', matrix.accessToken, '--matrix-user', '@owner:example.org');
    expect(result.code, result.out + result.err).toBe(0);
    expect(result.out).toContain(`Matrix bot: ${matrix.botUserId}`);
    const config = readFileSync(path.join(dir, 'config.yaml'), 'utf8');
    expect(config).not.toContain(matrix.accessToken);
    expect(config).toContain('access_token: ${MATRIX_ACCESS_TOKEN}');
    expect(readFileSync(path.join(dir, '.env'), 'utf8')).toContain(`MATRIX_ACCESS_TOKEN=${matrix.accessToken}`);
    const loaded = loadConfig({ configPath: path.join(dir, 'config.yaml'), env: {} });
    expect(loaded.config.channels.matrix).toEqual({
      homeserver_url: matrix.baseUrl, user_id: matrix.botUserId, access_token: matrix.accessToken, device_id: '', allowed_users: ['@owner:example.org'],
    });
  });

  it('stops with what to do when the homeserver refuses the token, writing nothing', async () => {
    const dir = tempDir();
    const result = await init(dir, '--matrix-homeserver', matrix.baseUrl, '--matrix-token', 'syt_wrong');
    expect(result.code).toBe(1);
    expect(result.out).toContain('Matrix: the homeserver refused this access token');
    expect(() => readFileSync(path.join(dir, 'config.yaml'))).toThrow();
  });

  it('refuses a user id that is not a Matrix id', async () => {
    const result = await init(tempDir(), '--matrix-homeserver', matrix.baseUrl, '--matrix-token', matrix.accessToken, '--matrix-user', 'owner');
    expect(result.code).not.toBe(0);
    expect(result.out + result.err).toContain('--matrix-user owner: a Matrix user id looks like @alice:example.org');
  });
});
