// The workspace size limit (tools.sandbox.workspace_mb) against the real engine: each workspace is its own
// loop-mounted filesystem, so 300 MB written from inside the container stop at the limit, the model's writes
// get a clear answer, the limit survives a restart and can be raised, and host files cannot be hard-linked in.
import { existsSync, linkSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon as App } from '../../src/daemon.js';
import { storeAttachments } from '../../src/channels/attachments.js';
import { isMountPoint } from '../../src/workspace/volumes.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp, tempDir, writeTestConfig, type TestApp } from '../helpers/app.js';
import { TEST_IMAGE, TEST_LABEL } from '../helpers/docker.js';
import { describeDockerVolumes } from '../helpers/volumes.js';

const origin = { channel: 'cli', chatId: 'quota', userId: 'owner' };
const MIB = 1024 * 1024;
const sandbox = (limitMb: number) => ({ image: TEST_IMAGE, pool_size: 1, workspace_mb: limitMb, labels: { [TEST_LABEL]: 'quota' } });

describeDockerVolumes('workspace size limit', () => {
  let fake: FakeOpenAI;
  let t: TestApp;
  let app: App;
  let dir: string;

  beforeAll(async () => {
    fake = await startOpenAiServer();
    dir = tempDir();
    // A workspace from before the limit existed: a plain folder, moved into an image on first use.
    mkdirSync(path.join(dir, 'data', 'workspaces', 'legacy', 'src'), { recursive: true });
    writeFileSync(path.join(dir, 'data', 'workspaces', 'legacy', 'src', 'old.py'), 'print("kept")\n');
    t = await makeTestApp(fake, { tools: { sandbox: sandbox(64) } }, dir);
    app = t.app;
    await app.start();
  });

  afterAll(async () => {
    await app?.close(0);
    await fake?.close();
  });

  const call = async (name: string, args: Record<string, unknown>, conversationId: string) =>
    (await app.tools.execute({ name, arguments: args, conversationId, turnId: 'turn', origin })).result;
  const workspace = (conversationId: string) => path.join(dir, 'data', 'workspaces', conversationId);

  it('gives a new conversation (warm hand-over) its own 64 MB filesystem, mounted nodev,nosuid', async () => {
    const result = await call('sandbox_exec', { command: 'df -m --output=size,avail /workspace | tail -1; grep " /workspace " /proc/mounts' }, 'full');
    expect(result.success).toBe(true);
    const [size, avail] = (/^\s*(\d+)\s+(\d+)/m.exec(result.output) ?? []).slice(1).map(Number);
    expect(avail).toBeGreaterThanOrEqual(62);
    expect(size).toBeLessThanOrEqual(80);
    expect(result.output).toMatch(/ \/workspace ext4 rw,nosuid,nodev/);
    expect(isMountPoint(workspace('full'))).toBe(true);
  });

  it('stops 300 MB written from inside the container at the limit and says which limit it is', async () => {
    const result = await call('sandbox_exec', { command: 'dd if=/dev/zero of=big bs=1M count=300 status=none; echo "exit $?"' }, 'full');
    expect(result.output).toContain('No space left on device');
    expect(result.output).toMatch(/the workspace is full \(6\d MB of 64 MB\); delete files or raise tools\.sandbox\.workspace_mb/);
    // On the host, the image holds what was written, not 300 MB.
    const image = path.join(dir, 'data', 'sandbox', 'volumes', 'full.img');
    expect(statSync(image).blocks * 512).toBeLessThan(80 * MIB);
    expect(statSync(path.join(workspace('full'), 'big')).size).toBeLessThan(65 * MIB);
  }, 60_000);

  it('refuses the model\'s write when full, keeping the old file, and writes again once space is freed', async () => {
    await call('sandbox_exec', { command: 'rm big && printf keep > kept.txt && dd if=/dev/zero of=big bs=1M count=300 status=none; true' }, 'full');
    const refused = await call('write', { path: 'kept.txt', content: 'x'.repeat(4 * 1024 * 1024) }, 'full');
    expect(refused.success).toBe(false);
    expect(refused.output).toMatch(/the workspace is full \(\d+ MB of 64 MB\); delete files or raise tools\.sandbox\.workspace_mb/);
    expect(readFileSync(path.join(workspace('full'), 'kept.txt'), 'utf8')).toBe('keep');
    await call('sandbox_exec', { command: 'rm big' }, 'full');
    const written = await call('write', { path: 'kept.txt', content: 'x'.repeat(4 * 1024 * 1024) }, 'full');
    expect(written.success).toBe(true);
  }, 60_000);

  it('skips an upload that does not fit, saying the workspace is full', async () => {
    await call('sandbox_exec', { command: 'dd if=/dev/zero of=big bs=1M count=300 status=none; true' }, 'full');
    const stored = await storeAttachments({
      attachments: [{ kind: 'file', name: 'photo.raw', mimeType: 'application/octet-stream', size: 2 * MIB, fetch: async () => Buffer.alloc(2 * MIB, 1) }],
      dataDir: app.config.data_dir, conversationId: 'full', maxBytes: 20 * MIB, log: app.log, workspaces: app.sandbox?.workspaces,
    });
    expect(stored.saved).toEqual([]);
    expect(stored.skipped[0]?.reason).toMatch(/^the workspace is full \(\d+ MB of 64 MB\)/);
    await call('sandbox_exec', { command: 'rm big' }, 'full');
  }, 60_000);

  it('cannot hold a hard link to a host file: links never cross into its filesystem', async () => {
    await call('write', { path: 'a.txt', content: 'a' }, 'full');
    const host = path.join(tempDir('familiar-host-'), 'secret');
    writeFileSync(host, 'host secret\n', { mode: 0o600 });
    expect(() => linkSync(host, path.join(workspace('full'), 'secret'))).toThrow(/EXDEV/);
    const fromInside = await call('sandbox_exec', { command: 'ln /etc/passwd passwd 2>&1; ls passwd 2>&1' }, 'full');
    expect(fromInside.output).toMatch(/Invalid cross-device link|No such file/);
  });

  it('moved a plain workspace from before the limit into its own image, files kept', async () => {
    const read = await call('read', { path: 'src/old.py' }, 'legacy');
    expect(read.output).toBe('1\tprint("kept")');
    expect(isMountPoint(workspace('legacy'))).toBe(true);
    const run = await call('sandbox_exec', { command: 'python3 src/old.py && stat -c %u src/old.py && df -m --output=size /workspace | tail -1' }, 'legacy');
    expect(run.output).toContain('kept\n1000\n');
  });

  describe('across restarts', () => {
    it('keeps the files and the limit after a restart, and grows the workspace when the limit is raised', async () => {
      await call('write', { path: 'persist.txt', content: 'still here\n' }, 'full');
      await app.close(0);
      // Unmounted at shutdown, as after a reboot: the image is mounted again on first use.
      expect(isMountPoint(workspace('full'))).toBe(false);
      writeTestConfig(dir, fake, { tools: { sandbox: sandbox(96) } });
      app = await t.restart();
      await app.start();
      expect((await call('read', { path: 'persist.txt' }, 'full')).output).toBe('1\tstill here');
      // 4 MB of kept.txt are in use: more than the old 64 MB limit is free now.
      const df = await call('sandbox_exec', { command: 'df -m --output=avail /workspace | tail -1' }, 'full');
      expect(Number(/--- stdout[^\n]*\n\s*(\d+)/.exec(df.output)?.[1])).toBeGreaterThanOrEqual(85);
      const flood = await call('sandbox_exec', { command: 'dd if=/dev/zero of=big bs=1M count=300 status=none; true' }, 'full');
      expect(flood.output).toMatch(/the workspace is full \(9\d MB of 96 MB\)/);
      expect(existsSync(path.join(dir, 'data', 'sandbox', 'volumes', 'full.img'))).toBe(true);
    }, 90_000);
  });
});
