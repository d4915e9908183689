import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Daemon as App } from '../../src/daemon.js';
import { runCli } from '../../src/cli/run.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { askWith, recordingPrompter } from '../helpers/approval.js';
import { captureIo } from '../helpers/io.js';

const origin = { channel: 'cli', chatId: 'audit', userId: 'owner' };

describe('familiar audit', () => {
  let fake: FakeOpenAI;
  let t: TestApp;
  let app: App;

  beforeEach(async () => {
    fake = await startOpenAiServer();
    t = await makeTestApp(fake);
    app = t.app;
    app.tools.register({
      name: 'login',
      description: 'Log in somewhere.',
      risk: 'high',
      parameters: { type: 'object', properties: { user: { type: 'string' }, password: { type: 'string' } } },
      async execute() {
        return { success: true, output: 'logged in' };
      },
    });
    fake.script(
      { toolCalls: [{ name: 'memory_read', arguments: { path: 'missing.md' } }, { name: 'login', arguments: { user: 'sam', password: 'pa55word-xyz' } }] },
      { content: 'done' },
    );
    await app.turns.start({ text: 'go', origin, source: 'cli', approve: askWith(app, recordingPrompter('deny')) });
    fake.script({ toolCalls: [{ name: 'memory_write', arguments: { path: 'a.md', content: 'x' } }] }, { content: 'done' });
    await app.turns.start({ text: 'go', origin: { channel: 'cli', chatId: 'elsewhere' }, source: 'cli' });
  });

  afterEach(async () => {
    await app.close(0);
    await fake.close();
  });

  const audit = async (...args: string[]) => {
    const io = captureIo();
    const code = await runCli(['audit', '--config', t.configPath, ...args], io);
    return { code, out: io.out(), err: io.err() };
  };

  it('lists tool calls newest first with outcome, duration and approval decision', async () => {
    const { code, out } = await audit();
    expect(code).toBe(0);
    const heads = out.split('\n').filter((line) => /^\d{4}-/.test(line));
    expect(heads).toHaveLength(3);
    expect(heads[0]).toMatch(/memory_write  ok  \d+ ms  conversation: cli-elsewhere-/);
    expect(out).toMatch(/login  denied  \d+ ms  approval: denied: the person said no  conversation: cli-audit-/);
    expect(out).toMatch(/memory_read  failed  \d+ ms/);
    expect(out).toMatch(/error: missing\.md does not exist/);
  });

  it('masks secret-looking arguments', async () => {
    const { out } = await audit('--tool', 'login');
    expect(out).toContain('"password":"[MASKED]"');
    expect(out).not.toContain('pa55word-xyz');
  });

  it('filters by tool, conversation and time', async () => {
    expect((await audit('--tool', 'memory_*')).out).not.toContain('login');
    const conversation = app.conversations.resolve('cli', 'elsewhere');
    const byConversation = await audit('--conversation', conversation, '--json');
    expect((JSON.parse(byConversation.out) as Array<{ tool: string; outcome: string }>).map((row) => [row.tool, row.outcome])).toEqual([['memory_write', 'ok']]);
    expect((await audit('--since', '2099-01-01')).out).toBe('No tool calls match.\n');
    expect((await audit('--since', '1h')).out).toContain('login');
  });

  it('rejects an unreadable --since', async () => {
    const { code, err } = await audit('--since', 'last tuesday');
    expect(code).toBe(2);
    expect(err).toMatch(/neither a duration/);
  });
});
