// sandbox_exec against the real Docker engine: output, exit codes, timeouts, persistence, per-conversation isolation.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { TEST_IMAGE, TEST_LABEL, describeDocker, dockerClient } from '../helpers/docker.js';

const origin = { channel: 'cli', chatId: 'test', userId: 'owner' };

describeDocker('sandbox_exec', () => {
  const docker = dockerClient();
  let fake: FakeOpenAI;
  let t: TestApp;
  let app: App;

  beforeAll(async () => {
    fake = await startOpenAiServer();
    t = await makeTestApp(fake, {
      tools: { sandbox: { image: TEST_IMAGE, pool_size: 1, memory_mb: 256, pids_limit: 64, labels: { [TEST_LABEL]: 'exec' } } },
    });
    app = t.app;
    await app.start();
  });

  afterAll(async () => {
    await app?.close(0);
    await fake?.close();
  });

  const exec = async (conversationId: string, args: Record<string, unknown>) =>
    (await app.tools.execute({ name: 'sandbox_exec', arguments: args, conversationId, turnId: 'turn', origin })).result;

  it('runs python and returns 42 with exit code 0', async () => {
    const result = await exec('conv-a', { command: "python3 -c 'print(6*7)'" });
    expect(result.success).toBe(true);
    expect(result.output).toMatch(/^exit code 0\n--- stdout \(3 bytes\) ---\n42\n\n--- stderr: \(empty\) ---$/);
  });

  it('reports stderr and a non-zero exit code separately from stdout', async () => {
    const result = await exec('conv-a', { command: 'echo to-out; echo to-err >&2; exit 3' });
    expect(result.success).toBe(false);
    expect(result.output).toContain('exit code 3');
    expect(result.output).toContain('--- stdout (7 bytes) ---\nto-out\n');
    expect(result.output).toContain('--- stderr (7 bytes) ---\nto-err\n');
  });

  it('kills a command that passes its timeout, replaces the container and keeps the workspace', async () => {
    await exec('conv-timeout', { command: 'echo kept > before.txt' });
    const container = app.context.pool?.containerOf('conv-timeout');
    expect(container).toBeDefined();
    const result = await exec('conv-timeout', { command: 'sleep 1000', timeout_s: 1 });
    expect(result.success).toBe(false);
    expect(result.output).toMatch(/^timed out after 1 s: the command was killed with its container/);
    // The container that ran it is gone (the Docker API cannot kill one exec).
    await expect(docker.getContainer(container ?? '').inspect()).rejects.toMatchObject({ statusCode: 404 });
    const next = await exec('conv-timeout', { command: 'cat before.txt' });
    expect(next.success).toBe(true);
    expect(next.output).toContain('kept');
    expect(app.context.pool?.containerOf('conv-timeout')).not.toBe(container);
  });

  it('keeps a file between calls of one conversation and hides it from another', async () => {
    await exec('conv-a', { command: 'echo secret-of-a > mine.txt' });
    const again = await exec('conv-a', { command: 'cat /workspace/mine.txt' });
    expect(again.output).toContain('secret-of-a');
    const other = await exec('conv-b', { command: 'ls -A /workspace; cat /workspace/mine.txt' });
    expect(other.output).not.toContain('secret-of-a');
    expect(other.output).toContain('No such file or directory');
    // The host side is the conversation's folder under data_dir/workspaces.
    expect(readFileSync(path.join(t.dir, 'data', 'workspaces', 'conv-a', 'mine.txt'), 'utf8')).toBe('secret-of-a\n');
    // And nothing in conv-b's container leads to the other workspaces.
    const mounts = await exec('conv-b', { command: 'cat /proc/self/mountinfo | grep -c workspace; ls / | grep -c workspaces' });
    expect(mounts.output).toMatch(/stdout \(\d+ bytes\) ---\n1\n0\n/);
  });

  it('runs as a non-root user with a read-only root and a writable /tmp', async () => {
    const id = await exec('conv-a', { command: 'id -u' });
    expect(id.output).toContain('\n1000\n');
    const etc = await exec('conv-a', { command: 'echo x > /etc/evil' });
    expect(etc.success).toBe(false);
    expect(etc.output).toMatch(/Read-only file system|Permission denied/);
    const tmp = await exec('conv-a', { command: 'echo y > /tmp/ok && cat /tmp/ok' });
    expect(tmp.success).toBe(true);
  });

  it('creates containers with every hardening default and only the workspace mounted', async () => {
    await exec('conv-a', { command: 'true' });
    const info = await docker.getContainer(app.context.pool?.containerOf('conv-a') ?? '').inspect();
    expect(info.Config.User).toBe('1000');
    expect(info.HostConfig).toMatchObject({
      NetworkMode: 'none',
      Memory: 256 * 1024 * 1024,
      MemorySwap: 256 * 1024 * 1024,
      NanoCpus: 1e9,
      PidsLimit: 64,
      ReadonlyRootfs: true,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      Privileged: false,
    });
    expect(info.HostConfig.Tmpfs?.['/tmp']).toContain('size=64m');
    expect(info.Mounts.map((mount) => mount.Destination)).toEqual(['/workspace']);
    expect(JSON.stringify(info.Mounts)).not.toContain('docker.sock');
    expect(info.Config.Labels).toMatchObject({ 'familiar.sandbox': '1', [TEST_LABEL]: 'exec' });
  });

  it('hands a warm container to a new conversation and refills the pool', async () => {
    // A warm container is an image made and mounted plus a container started: seconds on a loaded machine.
    await expect.poll(() => app.context.pool?.warmCount, { timeout: 15_000 }).toBe(1);
    await exec('conv-fresh', { command: 'true' });
    const info = await docker.getContainer(app.context.pool?.containerOf('conv-fresh') ?? '').inspect();
    expect(info.Config.Labels?.['familiar.sandbox.role']).toBe('warm');
    const write = await exec('conv-fresh', { command: 'echo hello > handed.txt' });
    expect(write.success).toBe(true);
    expect(readFileSync(path.join(t.dir, 'data', 'workspaces', 'conv-fresh', 'handed.txt'), 'utf8')).toBe('hello\n');
    await expect.poll(() => app.context.pool?.warmCount, { timeout: 15_000 }).toBe(1);
  });

  it('refuses network: true unless tools.sandbox.allow_network is set', async () => {
    const result = await exec('conv-a', { command: 'curl -sS http://deb.debian.org/', network: true });
    expect(result.success).toBe(false);
    expect(result.output).toContain('tools.sandbox.allow_network is false');
  });

  it('rejects a timeout above max_timeout_s as an argument error', async () => {
    const result = await exec('conv-a', { command: 'true', timeout_s: 100000 });
    expect(result.success).toBe(false);
    expect(result.output).toContain('Invalid arguments for sandbox_exec: timeout_s must be <= 600');
  });
});
