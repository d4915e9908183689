// Sanity check of the Docker engine and the sandbox image with the hardening the sandbox uses.
import { createHash } from 'node:crypto';
import type Docker from 'dockerode';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TEST_IMAGE, TEST_LABEL, describeDocker, dockerClient, execIn } from '../helpers/docker.js';

describeDocker('docker engine and sandbox image', () => {
  const client = dockerClient();
  let container: Docker.Container | undefined;

  beforeAll(async () => {
    container = await client.createContainer({
      Image: TEST_IMAGE,
      Cmd: ['sleep', 'infinity'],
      User: '1000',
      Labels: { [TEST_LABEL]: '1' },
      HostConfig: {
        NetworkMode: 'none',
        Memory: 256 * 1024 * 1024,
        MemorySwap: 256 * 1024 * 1024,
        PidsLimit: 64,
        ReadonlyRootfs: true,
        Tmpfs: { '/tmp': 'rw,size=64m' },
        CapDrop: ['ALL'],
        SecurityOpt: ['no-new-privileges'],
      },
    });
    await container.start();
  });

  afterAll(async () => {
    await container?.remove({ force: true });
  });

  function running(): Docker.Container {
    if (!container) throw new Error('container was not created');
    return container;
  }

  it('runs python3 and separates stdout from stderr', async () => {
    const result = await execIn(client, running(), [
      'python3',
      '-c',
      'import sys; print(6*7); print("to stderr", file=sys.stderr)',
    ]);
    expect(result).toEqual({ exitCode: 0, stdout: '42\n', stderr: 'to stderr\n' });
  });

  it('runs as uid 1000 in /workspace', async () => {
    const id = await execIn(client, running(), ['id', '-u']);
    expect(id.exitCode).toBe(0);
    expect(id.stdout.trim()).toBe('1000');
    const pwd = await execIn(client, running(), ['pwd']);
    expect(pwd.stdout.trim()).toBe('/workspace');
  });

  it('has a read-only root filesystem and a writable /tmp', async () => {
    const etc = await execIn(client, running(), ['touch', '/etc/x']);
    expect(etc.exitCode).not.toBe(0);
    expect(etc.stderr).toMatch(/Read-only file system|Permission denied/);
    const tmp = await execIn(client, running(), ['touch', '/tmp/x']);
    expect(tmp.exitCode).toBe(0);
  });

  it('has no network and the configured limits', async () => {
    const info = await running().inspect();
    expect(info.HostConfig.NetworkMode).toBe('none');
    expect(info.HostConfig.Memory).toBe(256 * 1024 * 1024);
    expect(info.HostConfig.PidsLimit).toBe(64);
    expect(info.HostConfig.ReadonlyRootfs).toBe(true);
    const ifaces = await execIn(client, running(), ['ls', '/sys/class/net']);
    expect(ifaces.stdout.split(/\s+/).filter(Boolean)).toEqual(['lo']);
  });

  it('has the fake coding agent, which needs FAKE_AGENT_KEY', async () => {
    const missing = await execIn(client, running(), ['fake-code-agent', 'run', 'x'], { workingDir: '/tmp' });
    expect(missing.exitCode).toBe(3);
    expect(missing.stderr).toContain('FAKE_AGENT_KEY not set');
    const ok = await execIn(client, running(), ['fake-code-agent', 'run', 'write a haiku'], {
      workingDir: '/tmp',
      env: ['FAKE_AGENT_KEY=test-key-123'],
    });
    expect(ok.exitCode).toBe(0);
    expect(ok.stdout.trim().split('\n').at(-1)).toBe('Done: write a haiku');
    expect(ok.stdout).not.toContain('test-key-123');
    const files = await execIn(client, running(), ['cat', '/tmp/agent-output.txt', '/tmp/key.sha256']);
    const keyHash = createHash('sha256').update('test-key-123').digest('hex');
    expect(files.stdout).toBe(`write a haiku\n${keyHash}\n`);
  });
});
