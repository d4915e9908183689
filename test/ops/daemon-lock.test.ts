// One daemon per data folder, and one-shot commands beside a running daemon: the real `node dist/main.js` (run
// `npm run build` first) against the fake LLM, the fake Telegram and the real Docker engine.
import { rmSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import path from 'node:path';
import { Sqlite } from '../../src/db/sqlite.js';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.js';
import { alive, waitUntil } from '../helpers/daemon.js';
import { TEST_IMAGE, describeDocker } from '../helpers/docker.js';
import { OWNER, useProcessRig } from '../helpers/rig.js';
import type { ScriptedReply } from '../fakes/openai-server.js';

let proxy: Server | undefined;
// A folder with a config for the fake LLM and the fake Telegram (OWNER allowed), closed after each test.
const setUp = useProcessRig();

afterEach(() => {
  proxy?.close();
  proxy = undefined;
});

describe('one daemon per data folder', () => {
  it('refuses a second start on the same data_dir with one line naming the running one', async () => {
    const { dir, start: daemon, familiar } = await setUp();
    const first = daemon();
    await first.ready;
    const second = await familiar('start');
    expect(second.code).toBe(1);
    expect(second.stderr.trim().split('\n')).toEqual([
      `familiar: another familiar daemon (pid ${first.child.pid}) is running with data_dir ${path.join(dir, 'data')}; stop it first (kill ${first.child.pid}), or give this one another data_dir [DAEMON_RUNNING]`,
    ]);
    expect(alive(first)).toBe(true);
  }, 60_000);

  it('starts again after the running daemon was killed with kill -9 (the lock dies with its process)', async () => {
    const { start: daemon } = await setUp();
    const first = daemon();
    await first.ready;
    await first.kill9();
    const second = daemon();
    await second.ready;
    expect(alive(second)).toBe(true);
    expect(await second.term()).toBe(0);
  }, 60_000);

  it('starts after a clean stop, and a stale pid file alone does not block it', async () => {
    const { dir, start: daemon } = await setUp();
    const first = daemon();
    await first.ready;
    expect(await first.term()).toBe(0);
    rmSync(path.join(dir, 'data', 'daemon.lock'), { force: true });
    const second = daemon();
    await second.ready;
    expect(await second.term()).toBe(0);
  }, 60_000);
});

describeDocker('one-shot commands beside a running daemon', () => {
  it('leave the daemon\'s running turn, its jobs and the Docker engine untouched', async () => {
    // Every connection to the engine goes through this proxy, so the test sees whether a command asked Docker.
    const socket = path.join(tempDir('familiar-dockerproxy-'), 'docker.sock');
    let connections = 0;
    proxy = createServer((client) => {
      connections += 1;
      const engine = createConnection('/var/run/docker.sock');
      client.pipe(engine).pipe(client);
      engine.on('error', () => client.destroy());
      client.on('error', () => engine.destroy());
    });
    await new Promise<void>((resolve) => proxy?.listen(socket, resolve));
    const { dir, start: daemon, familiar, llm: fake, telegram: tg } = await setUp({
      tools: { sandbox: { image: TEST_IMAGE, pool_size: 0, docker_host: `unix://${socket}` } },
      scheduler: { jobs: [{ id: 'daily', cron: '0 7 * * *', prompt: 'good morning' }] },
    });
    let release = (): void => undefined;
    const released = new Promise<ScriptedReply>((resolve) => (release = () => resolve({ content: 'done' })));
    // The turn calls a tool that changes something (so its step and row are written: a read-only step would wait for
    // the next), then waits on the LLM until released.
    fake.handle((request) => {
      if (request.body.messages.at(-1)?.role !== 'tool') return { toolCalls: [{ name: 'memory_write', arguments: { path: 'notes/slow.md', content: 'taking my time' } }] };
      return released;
    });
    const running = daemon();
    await running.ready;
    tg.sendUserMessage({ chatId: OWNER, userId: OWNER, text: 'take your time' });
    await waitUntil(() => fake.requests.length === 2, 15_000, 'the slow turn to be running');

    const db = new Sqlite(path.join(dir, 'data', 'familiar.db'), { readonly: true });
    try {
      const turnBefore = db.prepare('SELECT id, status, runner FROM turns').all();
      const jobsBefore = db.prepare('SELECT * FROM jobs ORDER BY id').all();
      expect(turnBefore).toEqual([expect.objectContaining({ status: 'running', runner: 'daemon' })]);
      const connectionsBefore = connections;
      for (const args of [['audit'], ['usage'], ['memory', 'log'], ['jobs', 'list'], ['jobs', 'runs', 'daily'], ['skills', 'list'], ['pairing', 'list'], ['tools', 'list']]) {
        const result = await familiar(...args);
        expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 0, stderr: '' });
      }
      expect(connections).toBe(connectionsBefore);
      expect(db.prepare('SELECT * FROM jobs ORDER BY id').all()).toEqual(jobsBefore);
      expect(db.prepare('SELECT id, status, runner FROM turns').all()).toEqual(turnBefore);
      expect(db.prepare("SELECT COUNT(*) AS n FROM job_runs WHERE status = 'interrupted'").get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
    // The daemon's turn is still its own: it ends normally and is answered once.
    release();
    await waitUntil(() => tg.messagesTo(OWNER).length === 1, 30_000, 'the answer');
    expect(tg.messagesTo(OWNER).map((message) => message.text)).toEqual(['done']);
    expect(alive(running)).toBe(true);
    expect(await running.term()).toBe(0);
  }, 120_000);

  it('`ask` beside the daemon runs its own turn and leaves the daemon\'s running turn alone', async () => {
    const { dir, start: daemon, familiar, llm: fake, telegram } = await setUp();
    let release = (): void => undefined;
    const released = new Promise<ScriptedReply>((resolve) => (release = () => resolve({ content: 'done' })));
    // The daemon's turn calls a tool that changes something first (so its row exists), then waits on the LLM.
    fake.handle((request) => {
      const last = request.body.messages.at(-1);
      if (last?.role === 'user' && last.content === 'hello from the terminal') return { content: 'hi terminal' };
      if (last?.role === 'tool') return released;
      return { toolCalls: [{ name: 'memory_write', arguments: { path: 'notes/slow.md', content: 'taking my time' } }] };
    });
    const running = daemon();
    await running.ready;
    telegram.sendUserMessage({ chatId: OWNER, userId: OWNER, text: 'note that I am slow' });
    await waitUntil(() => fake.requests.length === 2, 15_000, 'the daemon\'s turn after its tool call');
    const db = new Sqlite(path.join(dir, 'data', 'familiar.db'), { readonly: true });
    try {
      expect(db.prepare('SELECT status, runner FROM turns').all()).toEqual([{ status: 'running', runner: 'daemon' }]);
      const asked = await familiar('ask', 'hello from the terminal');
      expect(asked).toMatchObject({ code: 0, stdout: 'hi terminal\n' });
      const rows = db.prepare('SELECT status, runner FROM turns ORDER BY started_at').all() as Array<{ status: string; runner: string }>;
      expect(rows[0]).toEqual({ status: 'running', runner: 'daemon' });
      expect(rows[1]).toMatchObject({ status: 'ok' });
      expect(rows[1]?.runner).toMatch(/^pid:\d+$/);
    } finally {
      db.close();
    }
    release();
    await waitUntil(() => telegram.messagesTo(OWNER).length === 1, 30_000, 'the daemon\'s answer');
    expect(await running.term()).toBe(0);
  }, 120_000);
});
