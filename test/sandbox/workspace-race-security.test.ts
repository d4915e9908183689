// The sandbox boundary under a hostile container, against the real engine: whatever uid 1000 does inside the
// container (planting links, swapping folders between the daemon's check and its use, FIFOs), the daemon's
// host-side file work on the workspace never reaches a host file, never blocks, and keeps serving.
import { execFileSync } from 'node:child_process';
import { chownSync, linkSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { lookup } from 'node:dns/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon as App } from '../../src/daemon.js';
import type { ContainerPool } from '../../src/sandbox/pool.js';
import { stageScripts } from '../../src/skills/runner.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp, tempDir, type TestApp } from '../helpers/app.js';
import { TEST_IMAGE, TEST_LABEL, describeDocker } from '../helpers/docker.js';
import { describeDockerVolumes } from '../helpers/volumes.js';

const origin = { channel: 'cli', chatId: 'race', userId: 'owner' };
const approve = async () => ({ approved: true as const, by: 'test' });
const ROUNDS = 40;

/** A host file only root may read, as an attacker would aim at (e.g. /etc/shadow). */
function hostSecret(dir: string, name = 'secret'): string {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  writeFileSync(file, 'host secret\n', { mode: 0o600 });
  chownSync(file, 0, 0);
  return file;
}

/** Resolves with `promise`, or rejects after `ms`: a hang becomes a failure instead of a stuck run. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// The same attacks with each workspace its own filesystem (the default) and as a plain folder (workspace_mb: 0,
// or a daemon that cannot mount): the boundary must not depend on the size limit.
const MODES: Array<[string, number]> = [
  ['with the size limit (own filesystem)', 1024],
  ['without a size limit (plain folder)', 0],
];

for (const [mode, limitMb] of MODES) (limitMb > 0 ? describeDockerVolumes : describeDocker)(`a hostile container racing the daemon, ${mode}`, () => {
  let fake: FakeOpenAI;
  let t: TestApp;
  let app: App;
  let host: string;
  let agentTarget: string;

  beforeAll(async () => {
    fake = await startOpenAiServer();
    host = tempDir('familiar-host-');
    agentTarget = path.join(host, 'agent-target');
    hostSecret(agentTarget, 'host-only-name.txt');
    t = await makeTestApp(fake, {
      tools: {
        sandbox: {
          image: TEST_IMAGE, pool_size: 0, workspace_mb: limitMb, labels: { [TEST_LABEL]: 'race' },
          // A hostile "coding agent": it plants a link to a host folder and a deep tree for the change listing.
          code_agent: { command: 'sh /workspace/agent.sh', network: 'none', env: { AGENT_KEY: 'unused' } },
        },
      },
    });
    app = t.app;
    await app.start();
  });

  afterAll(async () => {
    await app?.close(0);
    await fake?.close();
  });

  const call = async (name: string, args: Record<string, unknown>, conversationId: string) =>
    (await app.tools.execute({ name, arguments: args, conversationId, turnId: 'turn', origin, approve })).result;

  /**
   * Starts a tight Python loop in the conversation's container (kept in /tmp, out of the daemon's sight) that
   * runs the statements of `body` (one a line, each one's errors ignored) until the container is removed.
   */
  const hostileLoop = async (conversationId: string, body: string) => {
    const steps = body.split('\n').map((line) => `  try:\n    ${line}\n  except OSError:\n    pass`);
    const script = `import os, shutil, time\nwhile True:\n${steps.join('\n')}\n`;
    const command = `echo ${Buffer.from(script).toString('base64')} | base64 -d > /tmp/attack.py && (nohup setsid python3 /tmp/attack.py >/dev/null 2>&1 &) && echo started`;
    const started = await call('sandbox_exec', { command }, conversationId);
    expect(started.output).toContain('started');
  };

  it('never chowns or overwrites a host file that the container swaps in as write\'s target', async () => {
    const conversation = 'race-target';
    const secret = hostSecret(path.join(host, 'target'));
    await call('write', { path: 'target.txt', content: 'first\n' }, conversation);
    await hostileLoop(conversation, `os.symlink(${JSON.stringify(secret)}, '.l')\nos.replace('.l', 'target.txt')`);
    try {
      for (let round = 0; round < ROUNDS; round += 1) await call('write', { path: 'target.txt', content: `round ${round}\n` }, conversation);
    } finally {
      await (app.sandbox as ContainerPool | undefined)?.release(conversation);
    }
    const info = statSync(secret);
    expect([info.uid, info.gid, info.mode & 0o777]).toEqual([0, 0, 0o600]);
    expect(readFileSync(secret, 'utf8')).toBe('host secret\n');
  }, 120_000);

  it('never drops a file into a host folder swapped in for a parent folder', async () => {
    const conversation = 'race-parent';
    const target = path.join(host, 'parent');
    mkdirSync(target);
    await call('sandbox_exec', { command: 'true' }, conversation);
    await hostileLoop(conversation, `os.mkdir('d')\ntime.sleep(0.001)\nshutil.rmtree('d', ignore_errors=True)\nos.symlink(${JSON.stringify(target)}, 'd')\ntime.sleep(0.001)\nos.unlink('d')`);
    try {
      for (let round = 0; round < ROUNDS; round += 1) {
        await call('write', { path: 'd/file.txt', content: `round ${round}\n` }, conversation);
        await call('write', { path: 'd/e/deeper.txt', content: `round ${round}\n` }, conversation);
      }
    } finally {
      await (app.sandbox as ContainerPool | undefined)?.release(conversation);
    }
    expect(readdirSync(target)).toEqual([]);
    expect(statSync(target).uid).toBe(0);
  }, 120_000);

  it('never reads a host file through a parent folder swapped in between check and use', async () => {
    const conversation = 'race-read';
    const secretDir = path.join(host, 'read');
    hostSecret(secretDir, 'notes.txt');
    await call('write', { path: 'd/notes.txt', content: 'workspace notes\n' }, conversation);
    await hostileLoop(conversation, `os.rename('d', 'd.real')\nos.symlink(${JSON.stringify(secretDir)}, 'd')\nos.unlink('d')\nos.rename('d.real', 'd')`);
    const outputs: string[] = [];
    try {
      for (let round = 0; round < ROUNDS; round += 1) {
        outputs.push((await call('read', { path: 'd/notes.txt' }, conversation)).output);
        outputs.push((await call('grep', { pattern: 'secret|notes' }, conversation)).output);
        outputs.push((await call('listdir', { path: 'd' }, conversation)).output);
      }
    } finally {
      await (app.sandbox as ContainerPool | undefined)?.release(conversation);
    }
    expect(outputs.join('\n')).not.toContain('host secret');
  }, 120_000);

  it('copies skill scripts without touching a host folder the container swaps in for scripts/', async () => {
    const conversation = 'skill-race';
    const target = path.join(host, 'scripts-target');
    hostSecret(target, 'keep.txt');
    const skillDir = path.join(t.dir, 'skill');
    mkdirSync(path.join(skillDir, 'scripts', 'lib'), { recursive: true });
    writeFileSync(path.join(skillDir, 'scripts', 'run.sh'), 'echo hi\n');
    writeFileSync(path.join(skillDir, 'scripts', 'lib', 'util.py'), 'print(1)\n');
    const pool = app.sandbox as ContainerPool | undefined;
    if (!pool) throw new Error('no pool');
    await stageScripts(pool, conversation, skillDir);
    await hostileLoop(conversation, `shutil.rmtree('scripts', ignore_errors=True)\nos.symlink(${JSON.stringify(target)}, 'scripts.l')\nos.replace('scripts.l', 'scripts')`);
    try {
      for (let round = 0; round < ROUNDS; round += 1) await stageScripts(pool, conversation, skillDir).catch(() => undefined);
    } finally {
      await pool.release(conversation);
    }
    expect(readdirSync(target)).toEqual(['keep.txt']);
    expect([statSync(target).uid, statSync(path.join(target, 'keep.txt')).uid]).toEqual([0, 0]);
    // Without the attacker, staging works and the container's user owns the copy.
    await stageScripts(pool, conversation, skillDir);
    const listed = await call('sandbox_exec', { command: 'stat -c "%u %n" scripts scripts/run.sh scripts/lib/util.py && cat scripts/run.sh' }, conversation);
    expect(listed.output).toContain('1000 scripts/run.sh');
    expect(listed.output).toContain('1000 scripts/lib/util.py');
    expect(listed.output).toContain('echo hi');
  }, 120_000);

  describe('FIFOs named like files', () => {
    const conversation = 'race-fifo';

    afterAll(async () => {
      // Whatever happened, give every FIFO a writer so no thread of the test process stays blocked on one.
      await call('sandbox_exec', { command: 'for f in f1 f2 f3 f4 f5 report.pdf; do [ -p $f ] && (timeout 5 sh -c "echo x > $f" &); done; sleep 1; true' }, conversation).catch(() => undefined);
    });

    it('refuses to read them without blocking, while the daemon keeps serving other work', async () => {
      await call('sandbox_exec', { command: 'for f in f1 f2 f3 f4 f5 report.pdf; do mkfifo $f; done' }, conversation);
      const reads = Promise.all(['f1', 'f2', 'f3', 'f4', 'f5'].map((name) => call('read', { path: name }, conversation)));
      const greps = call('grep', { pattern: 'x' }, conversation);
      // Meanwhile: a memory write, a DNS lookup and another chat's turn complete (they need libuv's thread pool).
      fake.script({ content: 'still here' });
      const others = Promise.all([
        call('memory_write', { path: 'fifo-day.md', content: 'written during the FIFO attack\n' }, 'other-chat'),
        lookup('localhost'),
        app.turns.start({ text: 'are you there?', origin: { channel: 'cli', chatId: 'other-chat' }, source: 'chat' }),
      ]);
      const [memory, , turn] = await within(others, 20_000, 'other work during the FIFO attack');
      expect(memory.success).toBe(true);
      expect(turn.text).toBe('still here');
      const results = await within(reads, 20_000, 'reading five FIFOs');
      for (const result of results) {
        expect(result.success).toBe(false);
        expect(result.output).toMatch(/not a regular file/);
      }
      expect((await within(greps, 20_000, 'grep over FIFOs')).success).toBe(true);
    }, 60_000);
  });

  it('refuses device nodes, FIFOs and hard links planted next to real files, in every tool that reads', async () => {
    const conversation = 'planted';
    await call('write', { path: 'real.txt', content: 'real\n' }, conversation);
    const workspace = path.join(t.dir, 'data', 'workspaces', conversation);
    // Made from the host (the container has no CAP_MKNOD): what a variant of the attack could leave behind.
    execFileSync('mknod', [path.join(workspace, 'zero.pdf'), 'c', '1', '5']);
    execFileSync('mkfifo', [path.join(workspace, 'pipe.txt')]);
    const secret = hostSecret(path.join(host, 'planted'));
    let hardLinked = true;
    try {
      linkSync(secret, path.join(workspace, 'hard.txt'));
    } catch (error) {
      // Each workspace its own filesystem: a hard link to a host file cannot exist in it at all.
      expect((error as NodeJS.ErrnoException).code).toBe('EXDEV');
      hardLinked = false;
    }
    expect(hardLinked).toBe(limitMb === 0);
    for (const name of ['zero.pdf', 'pipe.txt', ...(hardLinked ? ['hard.txt'] : [])]) {
      const read = await within(call('read', { path: name }, conversation), 20_000, `read ${name}`);
      expect(read.success, name).toBe(false);
      expect(read.output, name).toMatch(/not a regular file|hard links/);
      const edit = await within(call('edit', { path: name, old: 'a', new: 'b' }, conversation), 20_000, `edit ${name}`);
      expect(edit.success, name).toBe(false);
    }
    const grep = await within(call('grep', { pattern: 'secret|real' }, conversation), 20_000, 'grep');
    expect(grep.output).toBe('real.txt:1: real');
    // Overwriting the hard-linked name replaces that name only: the host file keeps its content and owner.
    if (hardLinked) expect((await call('write', { path: 'hard.txt', content: 'mine\n' }, conversation)).success).toBe(true);
    expect(readFileSync(secret, 'utf8')).toBe('host secret\n');
    expect(statSync(secret).uid).toBe(0);
  }, 60_000);

  it('walks a tree 2000 folders deep with bounded depth, and keeps working in it', async () => {
    const conversation = 'deep';
    const made = await call('sandbox_exec', { command: "python3 -c \"import os\nfor i in range(2000):\n  os.mkdir('d'); os.chdir('d')\nopen('bottom.txt', 'w').write('bottom')\nos.chdir('/workspace')\nfor i in range(3000): open('wide-%d.txt' % i, 'w').write('w')\nprint('made')\"" }, conversation);
    expect(made.output).toContain('made');
    const glob = await call('glob', { pattern: '**/bottom.txt' }, conversation);
    expect(glob.success).toBe(true);
    expect(glob.output).toContain('only part of the workspace was searched');
    const grep = await call('grep', { pattern: 'bottom' }, conversation);
    expect(grep.success).toBe(true);
    const listing = await call('listdir', {}, conversation);
    expect(listing.output).toContain('d/');
    expect(listing.output).toContain('only the first 1000 entries are shown');
    expect((await call('write', { path: 'd/d/d/new.txt', content: 'deep write\n' }, conversation)).success).toBe(true);
    expect((await call('read', { path: 'd/d/d/new.txt' }, conversation)).output).toBe('1\tdeep write');
  }, 120_000);

  it('lists a hostile coding agent\'s changes without entering a link to a host folder', async () => {
    const conversation = 'agent';
    await call('write', { path: 'agent.sh', content: `ln -s ${agentTarget} hostlink\nmkdir -p a/b/c && echo x > a/b/c/made.txt\necho done\n` }, conversation);
    const result = await call('opencode', { task: 'anything' }, conversation);
    expect(result.output).toContain('created  hostlink');
    expect(result.output).toContain('created  a/b/c/made.txt');
    expect(result.output).not.toContain('host-only-name.txt');
    expect(readdirSync(agentTarget)).toEqual(['host-only-name.txt']);
  }, 60_000);
});
