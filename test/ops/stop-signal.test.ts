// Stop signals to the real daemon (`node dist/main.js start`; run `npm run build` first) at the moments a plain
// "SIGTERM during a turn" does not reach: while the parts start (a Bot API that refuses the connection, one that takes
// it and never answers), and a second signal while it stops. The exits are bounded generously: what is checked is
// that the daemon ends, and how, not how fast.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { lastUserText, waitUntil, type Daemon } from '../helpers/daemon.js';
import { OWNER, freePort, useProcessRig } from '../helpers/rig.js';

const EXIT_WITHIN_MS = 20_000;

let silent: Server | undefined;
const setUp = useProcessRig();

afterEach(async () => {
  silent?.closeAllConnections();
  await new Promise((resolve) => silent?.close(resolve) ?? resolve(undefined));
  silent = undefined;
});

/** A Telegram channel whose Bot API is at `apiRoot` (the rig's fake LLM stays). */
const telegramAt = (apiRoot: string) => ({ channels: { telegram: { token: '123456:test-token-test-token', api_root: apiRoot, allowed_users: [OWNER] } } });

/** The exit code, or 'still running' when the daemon has not exited within EXIT_WITHIN_MS. */
async function exitOf(daemon: Daemon): Promise<number | null | 'still running'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'still running'>((resolve) => {
    timer = setTimeout(() => resolve('still running'), EXIT_WITHIN_MS);
  });
  try {
    return await Promise.race([daemon.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A Bot API that takes every request and never answers; counts the requests. */
async function silentBotApi(): Promise<{ apiRoot: string; requests: () => number }> {
  let requests = 0;
  const server = createServer(() => {
    requests += 1;
  });
  silent = server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { apiRoot: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => requests };
}

describe('a stop signal while the daemon starts', () => {
  it('SIGTERM while Telegram cannot be reached, before "ready": the start is abandoned and the daemon exits 0', async () => {
    const { start } = await setUp(telegramAt(`http://127.0.0.1:${await freePort()}`));
    const daemon = start();
    await waitUntil(() => daemon.stderr().includes('telegram: network error; retrying'), 15_000, 'the Telegram start to retry');
    daemon.child.kill('SIGTERM');
    expect(await exitOf(daemon)).toBe(0);
    expect(daemon.stderr()).not.toContain('familiar is ready');
    expect(daemon.stderr()).toMatch(/"msg":"shutting down"[\s\S]*"msg":"stopped"/);
  }, 60_000);

  it('SIGINT while the Bot API takes the connection and never answers: the waiting getMe is aborted and the daemon exits 0', async () => {
    const botApi = await silentBotApi();
    const { start } = await setUp(telegramAt(botApi.apiRoot));
    const daemon = start();
    await waitUntil(() => botApi.requests() > 0, 15_000, 'the Telegram start to call getMe');
    daemon.child.kill('SIGINT');
    expect(await exitOf(daemon)).toBe(0);
    expect(daemon.stderr()).not.toContain('familiar is ready');
    expect(daemon.stderr()).toContain('telegram: start abandoned: shutting down');
  }, 60_000);
});

describe('an unreachable Telegram at start', () => {
  it('does not hold the daemon: it is ready, says Telegram failed and keeps trying, and stops on SIGTERM', async () => {
    const { start } = await setUp(telegramAt(`http://127.0.0.1:${await freePort()}`));
    const daemon = start();
    await waitUntil(() => daemon.stderr().includes('familiar is ready'), 30_000, 'the ready line');
    const ready = JSON.parse(daemon.stderr().split('\n').find((line) => line.includes('familiar is ready')) ?? '{}') as { level?: number; msg?: string };
    expect(ready.level).toBe(40);
    expect(ready.msg).toMatch(/^familiar is ready, but nobody can message it: telegram failed to start \(the reason is above\) — it keeps trying to connect/);
    const failed = daemon.stderr().split('\n').find((line) => line.includes('"msg":"telegram failed to start"')) ?? '';
    expect(failed).toContain('"code":"TELEGRAM_UNREACHABLE"');
    expect(failed).toContain('it keeps trying in the background');
    daemon.child.kill('SIGTERM');
    expect(await exitOf(daemon)).toBe(0);
  }, 60_000);
});

describe('a second stop signal', () => {
  it('while running turns drain: the daemon exits at once with 128 + the signal number', async () => {
    const { llm, telegram, start } = await setUp();
    llm.handle(() => ({ hang: true }));
    const daemon = start();
    await daemon.ready;
    telegram.sendUserMessage({ chatId: OWNER, userId: OWNER, text: 'a question the model never answers' });
    await waitUntil(() => llm.requests.length === 1, 15_000, 'the hanging LLM call');
    expect(llm.requests.map(lastUserText)).toEqual(['a question the model never answers']);
    daemon.child.kill('SIGTERM');
    await waitUntil(() => daemon.stderr().includes('shutting down'), 5000, 'the shutdown to begin');
    daemon.child.kill('SIGTERM');
    expect(await exitOf(daemon)).toBe(143);
    expect(daemon.stderr()).toContain('a second stop signal: exiting now');
    expect(daemon.stderr()).not.toMatch(/"msg":"stopped"/);
  }, 60_000);
});
