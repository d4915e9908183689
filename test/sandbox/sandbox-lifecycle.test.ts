import type { ContainerPool } from '../../src/sandbox/pool.js';
// The pool's life: leftovers of a killed daemon removed at the next start, nothing left after shutdown,
// idle containers reclaimed, a remote engine (docker_host over TCP), and the one-line refusals.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createConnection, createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp, tempDir, writeTestConfig } from '../helpers/app.js';
import { TEST_IMAGE, TEST_LABEL, describeDocker, dockerClient } from '../helpers/docker.js';

const origin = { channel: 'cli', chatId: 'test', userId: 'owner' };
const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startOpenAiServer();
});
afterAll(async () => {
  await fake?.close();
});

describe('sandbox installer without an engine', () => {
  it('logs one line and registers nothing when tools.sandbox is absent', async () => {
    const t = await makeTestApp(fake);
    const lines = t.logs.filter((line) => line.includes('sandbox'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('tools.sandbox is not configured');
    expect(t.app.tools.get('sandbox_exec')).toBeUndefined();
    expect(t.app.tools.get('read')).toBeUndefined();
    expect(t.app.sandbox).toBeUndefined();
    await t.app.close(0);
  });

  it('logs how to fix it, keeps the tools, and sandbox_exec says what to fix while no engine answers', async () => {
    const t = await makeTestApp(fake, { tools: { sandbox: { image: TEST_IMAGE, docker_host: 'unix:///nonexistent/docker.sock' } } });
    const lines = t.logs.filter((line) => line.includes('"component":"sandbox"'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('no Docker engine answers at unix:///nonexistent/docker.sock');
    expect(lines[0]).toContain('scripts/setup-docker.sh');
    expect(lines[0]).toContain('asked again on each command');
    for (const name of ['sandbox_exec', 'read', 'write', 'edit', 'glob', 'grep', 'listdir', 'list']) expect(t.app.tools.get(name)).toBeDefined();
    const run = await t.app.tools.execute({ name: 'sandbox_exec', arguments: { command: 'echo hi' }, conversationId: 'conv-none', turnId: 'turn', origin });
    expect(run.result.success).toBe(false);
    expect(run.result.output).toMatch(/^The sandbox could not run the command: the sandbox is not available: no Docker engine answers at unix:\/\/\/nonexistent\/docker\.sock .*familiar doctor\.$/s);
    // The file tools work on the host side and need no engine.
    expect((await t.app.tools.execute({ name: 'write', arguments: { path: 'a.txt', content: 'kept' }, conversationId: 'conv-none', turnId: 'turn', origin })).result.success).toBe(true);
    expect((await t.app.tools.execute({ name: 'read', arguments: { path: 'a.txt' }, conversationId: 'conv-none', turnId: 'turn', origin })).result.output).toContain('kept');
    const doctor = await t.app.parts.find((module) => module.name === 'sandbox')?.doctor?.();
    expect(doctor?.[0]).toMatchObject({ status: 'fail' });
    await t.app.close(0);
  });
});

describeDocker('sandbox pool lifecycle', () => {
  const docker = dockerClient();
  const labelled = async (value: string) => (await docker.listContainers({ all: true, filters: { label: [`${TEST_LABEL}=${value}`] } })).map((info) => info.Id);

  it('says how to build the image when it is missing, and runs commands once it is built, without a restart', async () => {
    const tag = `not-built-${randomBytes(4).toString('hex')}`;
    const t = await makeTestApp(fake, { tools: { sandbox: { image: `familiar-sandbox:${tag}`, pool_size: 1, labels: { [TEST_LABEL]: tag } } } });
    try {
      await t.app.start();
      const lines = t.logs.filter((line) => line.includes('"component":"sandbox"'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`the image familiar-sandbox:${tag} is missing; build it with: bash scripts/build-sandbox-image.sh familiar-sandbox:${tag}`);
      const exec = () => t.app.tools.execute({ name: 'sandbox_exec', arguments: { command: 'echo built' }, conversationId: 'conv-later', turnId: 'turn', origin });
      expect((await exec()).result.output).toContain(`the image familiar-sandbox:${tag} is missing`);
      await docker.getImage(TEST_IMAGE).tag({ repo: 'familiar-sandbox', tag });
      expect((await exec()).result.output).toContain('built');
    } finally {
      await t.app.close(0);
      await docker.getImage(`familiar-sandbox:${tag}`).remove({ noprune: true }).catch(() => undefined);
    }
    // The daemon's own pool, made late: its warm and session containers went with it.
    expect(await labelled(tag)).toEqual([]);
  });

  it('removes containers left by a killed daemon at the next start, and leaves none after shutdown', async () => {
    const label = `crash-${randomBytes(4).toString('hex')}`;
    const dir = tempDir();
    const overrides = { tools: { sandbox: { image: TEST_IMAGE, pool_size: 2, labels: { [TEST_LABEL]: label } } } };
    const configPath = writeTestConfig(dir, fake, overrides);
    const child = spawn(process.execPath, [MAIN, 'start', '--config', configPath], { env: { ...process.env, TEST_LLM_KEY: fake.apiKey }, stdio: 'ignore' });
    try {
      await expect.poll(() => labelled(label), { timeout: 20_000, interval: 100 }).toHaveLength(2);
    } finally {
      child.kill('SIGKILL');
    }
    await new Promise((resolve) => child.once('exit', resolve));
    const leftovers = await labelled(label);
    expect(leftovers).toHaveLength(2);

    const t = await makeTestApp(fake, overrides, dir);
    await t.app.start();
    for (const id of leftovers) await expect(docker.getContainer(id).inspect()).rejects.toMatchObject({ statusCode: 404 });
    const run = await t.app.tools.execute({ name: 'sandbox_exec', arguments: { command: 'echo after restart' }, conversationId: 'conv-r', turnId: 'turn', origin });
    expect(run.result.output).toContain('after restart');
    expect((await labelled(label)).length).toBeGreaterThan(0);
    await t.app.close(0);
    expect(await labelled(label)).toEqual([]);
    // Two daemons' starts, each making two warm workspaces (images mounted) and containers: slow on a loaded machine.
  }, 90_000);

  it('reclaims an idle container and gives the conversation a new one with its files', async () => {
    const t = await makeTestApp(fake, { tools: { sandbox: { image: TEST_IMAGE, pool_size: 0, idle_s: 0.5, labels: { [TEST_LABEL]: 'idle' } } } });
    await t.app.start();
    const exec = async (command: string) =>
      (await t.app.tools.execute({ name: 'sandbox_exec', arguments: { command }, conversationId: 'conv-idle', turnId: 'turn', origin })).result;
    await exec('echo persisted > note.txt');
    const first = (t.app.sandbox as ContainerPool | undefined)?.containerOf('conv-idle');
    expect(first).toBeDefined();
    await expect.poll(() => docker.getContainer(first ?? '').inspect().then(() => 'running', () => 'removed'), { timeout: 10_000 }).toBe('removed');
    expect((t.app.sandbox as ContainerPool | undefined)?.containerOf('conv-idle')).toBeUndefined();
    expect((await exec('cat note.txt')).output).toContain('persisted');
    await t.app.close(0);
    expect(await labelled('idle')).toEqual([]);
  });

  describe('remote engine', () => {
    let proxy: Server;
    let connections = 0;

    beforeAll(async () => {
      // A TCP endpoint in front of the local socket: the client speaks to it as to a remote engine.
      proxy = createServer((socket) => {
        connections += 1;
        const upstream = createConnection('/var/run/docker.sock');
        socket.pipe(upstream).pipe(socket);
        socket.on('error', () => upstream.destroy());
        upstream.on('error', () => socket.destroy());
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    });

    afterAll(() => {
      proxy?.close();
    });

    it('works through tools.sandbox.docker_host (tcp://)', async () => {
      const address = proxy.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      const t = await makeTestApp(fake, { tools: { sandbox: { image: TEST_IMAGE, pool_size: 1, docker_host: `tcp://127.0.0.1:${port}`, labels: { [TEST_LABEL]: 'remote' } } } });
      expect(t.logs.find((line) => line.includes('sandbox: ready'))).toContain(`"engine":"http://127.0.0.1:${port}"`);
      await t.app.start();
      const before = connections;
      const result = await t.app.tools.execute({ name: 'sandbox_exec', arguments: { command: "python3 -c 'print(6*7)'" }, conversationId: 'conv-remote', turnId: 'turn', origin });
      expect(result.result.output).toContain('\n42\n');
      expect(connections).toBeGreaterThan(before);
      await t.app.close(0);
      expect(await labelled('remote')).toEqual([]);
    });
  });
});

