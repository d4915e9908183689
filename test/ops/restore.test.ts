import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { startTelegramServer, type FakeTelegram } from '../fakes/telegram-server.js';
import { tempDir, writeTestConfig } from '../helpers/app.js';
import { startDaemon, type Daemon } from '../helpers/daemon.js';
import { captureIo } from '../helpers/io.js';

const OWNER = 5151;

// Back up, lose everything, restore: the daemon comes back with the same memory, jobs and conversation history.
describe('familiar backup, then familiar restore on an empty folder', () => {
  let llm: FakeOpenAI;
  let telegram: FakeTelegram;
  let daemon: Daemon | undefined;
  beforeAll(async () => {
    llm = await startOpenAiServer();
    telegram = await startTelegramServer();
  });
  afterAll(async () => {
    await daemon?.term();
    await Promise.all([llm.close(), telegram.close()]);
  });

  const cli = async (args: string[]): Promise<{ code: number; out: string; err: string }> => {
    const io = captureIo();
    const code = await runCli(args, io);
    return { code, out: io.out(), err: io.err() };
  };
  const run = async (dir: string): Promise<Daemon> => {
    const started = startDaemon(dir, { TEST_LLM_KEY: llm.apiKey });
    await Promise.race([started.ready, started.exited.then((code) => { throw new Error(`daemon exited ${code}: ${started.stderr()}`); })]);
    return started;
  };
  const ask = async (text: string, reply: string): Promise<void> => {
    llm.script({ content: reply });
    telegram.sendUserMessage({ chatId: OWNER, userId: OWNER, text });
    await telegram.waitFor(() => telegram.messagesTo(OWNER).find((message) => message.text === reply), 20_000);
  };

  it('brings back memory, jobs and history, and the daemon starts on them', async () => {
    const dir = tempDir('familiar-restore-');
    const config = path.join(dir, 'config.yaml');
    writeTestConfig(dir, llm, {
      log: { level: 'info', format: 'json' },
      channels: { telegram: { token: telegram.token, api_root: telegram.apiRoot, allowed_users: [OWNER] } },
    });
    writeFileSync(path.join(dir, 'memory', 'profile.md'), '# Profile\n\n- Drinks: green tea, no sugar\n');
    writeFileSync(path.join(dir, '.env'), `TEST_LLM_KEY=${llm.apiKey}\n`, { mode: 0o600 });
    daemon = await run(dir);
    await ask('My sister is called Anna.', 'Noted: your sister is Anna.');
    expect((await cli(['jobs', 'add', '--cron', '0 8 * * *', '--id', 'morning', '--deliver-to', `telegram:${OWNER}`, 'Brief me', '--config', config])).code).toBe(0);
    expect(await daemon.term()).toBe(0);

    const out = tempDir('familiar-backups-');
    const backup = await cli(['backup', '--out', out, '--tar', '--config', config]);
    expect(backup.code, backup.err).toBe(0);
    const archive = backup.out.trim();

    // Everything lost: the config, the secrets, the data, the memory.
    for (const name of readdirSync(dir)) rmSync(path.join(dir, name), { recursive: true, force: true });
    const restored = await cli(['restore', archive, '--config', config]);
    expect(restored.code, restored.err).toBe(0);
    expect(restored.out).toContain(`restored ${config}`);

    daemon = await run(dir);
    expect((await cli(['jobs', 'list', '--json', '--config', config])).out).toContain('"morning"');
    await ask('What is my sister called?', 'Anna.');
    const request = llm.requests.filter((recorded) => recorded.path.endsWith('/chat/completions')).at(-1);
    const messages = JSON.stringify(request?.body.messages ?? []);
    expect(messages).toContain('My sister is called Anna.');
    expect(messages).toContain('Noted: your sister is Anna.');
    expect(messages).toContain('green tea, no sugar');
    expect(readFileSync(path.join(dir, 'memory', 'profile.md'), 'utf8')).toContain('green tea');
  }, 120_000);

  it('refuses to restore over data that is there, and with --force moves it aside instead of deleting it', async () => {
    const dir = tempDir('familiar-restore-over-');
    const config = writeTestConfig(dir, llm);
    writeFileSync(path.join(dir, 'memory', 'profile.md'), 'from the backup\n');
    const out = tempDir('familiar-backups-');
    const made = await cli(['backup', '--out', out, '--config', config]);
    expect(made.code, made.err).toBe(0);
    writeFileSync(path.join(dir, 'memory', 'profile.md'), 'written since\n');
    const refused = await cli(['restore', made.out.trim(), '--config', config]);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/there is data here already: .*; nothing was changed\. Run again with --force/);
    expect(readFileSync(path.join(dir, 'memory', 'profile.md'), 'utf8')).toBe('written since\n');
    const forced = await cli(['restore', made.out.trim(), '--force', '--config', config]);
    expect(forced.code, forced.err).toBe(0);
    expect(readFileSync(path.join(dir, 'memory', 'profile.md'), 'utf8')).toBe('from the backup\n');
    const aside = /what was there before is in (\S+)/.exec(forced.out)?.[1] ?? '';
    expect(readFileSync(path.join(aside, 'memory', 'profile.md'), 'utf8')).toBe('written since\n');
  });
});
