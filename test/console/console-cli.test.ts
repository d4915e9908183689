// `familiar console`: a one-time link whose token only the daemon's database knows (as a hash); a clear answer
// when the console cannot be reached.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { digest } from '../../src/console/auth.js';
import { openDatabase } from '../../src/db/database.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { tempDir, writeTestConfig } from '../helpers/app.js';
import { captureIo } from '../helpers/io.js';
import path from 'node:path';

describe('familiar console', () => {
  let fake: FakeOpenAI;

  beforeEach(async () => {
    fake = await startOpenAiServer();
  });

  afterEach(async () => {
    await fake.close();
  });

  async function consoleCommand(http: Record<string, unknown> | undefined, ...args: string[]) {
    const dir = tempDir();
    const configPath = writeTestConfig(dir, fake, http ? { http } : {});
    const io = captureIo();
    const code = await runCli(['console', '--config', configPath, ...args], io);
    return { code, out: io.out(), err: io.err(), dir };
  }

  it('prints a one-time link with the token after #, stored only as a hash', async () => {
    const { code, out, err, dir } = await consoleCommand({ listen: '127.0.0.1:1' });
    expect(code).toBe(0);
    const token = /http:\/\/127\.0\.0\.1:1\/console\/login#token=([A-Za-z0-9_-]{43})\n/.exec(out)?.[1];
    expect(token, out).toBeDefined();
    expect(out).toContain('it works once, within 10 minutes');
    expect(err).toContain('no daemon answers');
    const db = openDatabase(path.join(dir, 'data'));
    try {
      const rows = db.prepare('SELECT token_hash, used_at FROM console_logins').all();
      expect(rows).toEqual([{ token_hash: digest(token ?? ''), used_at: null }]);
    } finally {
      db.close();
    }
  });

  it('uses http.public_url for the link, and --json for scripts', async () => {
    const { code, out } = await consoleCommand({ listen: '127.0.0.1:1', public_url: 'https://familiar.home.arpa/' }, '--json');
    expect(code).toBe(0);
    const printed = JSON.parse(out) as { url: string; expiresAt: string };
    expect(printed.url).toMatch(/^https:\/\/familiar\.home\.arpa\/console\/login#token=[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(printed.expiresAt)).toBeGreaterThan(Date.now());
  });

  it('says how to turn it on when http.listen is not set, or the console is off', async () => {
    const off = await consoleCommand(undefined);
    expect(off.code).toBe(1);
    expect(off.err).toContain('set http.listen: 127.0.0.1:8484');
    const disabled = await consoleCommand({ listen: '127.0.0.1:1', console: false });
    expect(disabled.code).toBe(1);
    expect(disabled.err).toContain('http.console: false');
  });
});
