import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Sqlite } from '../../src/db/sqlite.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startOpenAiServer, type FakeOpenAI, type RecordedRequest } from '../fakes/openai-server.js';
import { tempDir, writeTestConfig } from '../helpers/app.js';

// The real daemon (`node dist/main.js start`, run `npm run build` first), killed with SIGKILL mid-run.

const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

interface Daemon {
  child: ChildProcess;
  stderr: () => string;
  exited: Promise<number | null>;
}

function startDaemon(dir: string, fake: FakeOpenAI): Daemon {
  const child = spawn(process.execPath, [MAIN, 'start', '--config', path.join(dir, 'config.yaml')], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: dir, TEST_LLM_KEY: fake.apiKey },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stderr: () => stderr, exited };
}

async function waitUntil<T>(probe: () => T | undefined | false, timeoutMs: number, what: string, daemon: Daemon): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}; the daemon's log ends with:\n${daemon.stderr().slice(-3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const userText = (request: RecordedRequest) => {
  const content = request.body.messages.filter((message) => message.role === 'user').at(-1)?.content;
  return typeof content === 'string' ? content : '';
};

describe('kill -9 during a job run', () => {
  let fake: FakeOpenAI | undefined;
  const daemons: Daemon[] = [];

  afterEach(async () => {
    for (const daemon of daemons) if (daemon.child.exitCode === null && daemon.child.signalCode === null) daemon.child.kill('SIGKILL');
    await fake?.close();
  });

  it('records the run as interrupted after the restart and never runs it again', async () => {
    fake = await startOpenAiServer();
    const llm = fake;
    // The first run hangs in the LLM call, so the process is killed in the middle of it.
    llm.handle((request) => (userText(request) === 'slow job' && llm.requests.filter((r) => userText(r) === 'slow job').length === 1 ? { hang: true } : { content: 'done' }));
    const dir = tempDir();
    // Far enough ahead for a daemon that takes seconds to start on a busy machine: a run_at already past when the
    // config is read is refused (seen at 3 s with the load at 7–10 on 2 cores).
    const runAt = new Date(Date.now() + 6000).toISOString();
    writeTestConfig(dir, llm, { log: { level: 'info', format: 'json' }, scheduler: { jobs: [{ id: 'slow', run_at: runAt, prompt: 'slow job' }] } });

    const first = startDaemon(dir, llm);
    daemons.push(first);
    await waitUntil(() => llm.requests.some((request) => userText(request) === 'slow job'), 15_000, 'the job to start its LLM call', first);
    first.child.kill('SIGKILL');
    await first.exited;

    const second = startDaemon(dir, llm);
    daemons.push(second);
    await waitUntil(() => second.stderr().includes('familiar is ready'), 15_000, 'the restarted daemon', second);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    second.child.kill('SIGTERM');
    expect(await second.exited, second.stderr().slice(-3000)).toBe(0);

    expect(llm.requests.filter((request) => userText(request) === 'slow job')).toHaveLength(1);
    expect(second.stderr()).toMatch(/a job run was cut by a crash or kill; recorded as interrupted, not run again/);
    const db = new Sqlite(path.join(dir, 'data', 'familiar.db'), { readonly: true });
    try {
      const runs = db.prepare("SELECT status, scheduled_for, error FROM job_runs WHERE job_id = 'slow'").all();
      expect(runs).toEqual([{ status: 'interrupted', scheduled_for: Date.parse(runAt), error: expect.stringMatching(/crash or kill/) }]);
      expect(db.prepare("SELECT done_at IS NOT NULL AS done, next_run_at FROM jobs WHERE id = 'slow'").get()).toEqual({ done: 1, next_run_at: null });
    } finally {
      db.close();
    }
  }, 60_000);
});
