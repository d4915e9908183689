// Files a person sends on Telegram land in the conversation's workspace (uploads/), which the sandbox controls:
// whatever the container left at uploads/ (a link to a host folder, a FIFO), the file goes into the workspace,
// the host folder stays untouched, and a full workspace is said plainly. Real engine, fake Telegram server.
import { lstatSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OWNER_TG, startChannelRig, userTexts, type ChannelRig } from '../helpers/channels.js';
import { tempDir } from '../helpers/app.js';
import { TEST_IMAGE, TEST_LABEL } from '../helpers/docker.js';
import { describeDockerVolumes } from '../helpers/volumes.js';

describeDockerVolumes('uploads into a workspace the sandbox controls', () => {
  let rig: ChannelRig;
  let conversation: string;
  let workspace: string;
  let hostDir: string;

  beforeAll(async () => {
    rig = await startChannelRig({
      which: ['telegram'],
      overrides: { tools: { sandbox: { image: TEST_IMAGE, pool_size: 0, workspace_mb: 64, labels: { [TEST_LABEL]: 'uploads' } } } },
    });
    conversation = rig.app.conversations.resolve('telegram', String(OWNER_TG));
    workspace = path.join(rig.app.config.data_dir, 'workspaces', conversation);
    hostDir = tempDir('familiar-host-uploads-');
  });

  afterAll(async () => {
    await rig?.close();
  });

  const exec = async (command: string) =>
    (await rig.app.tools.execute({ name: 'sandbox_exec', arguments: { command }, conversationId: conversation, turnId: 'setup', origin: { channel: 'telegram', chatId: String(OWNER_TG) } })).result;

  /** Sends a document and returns the text the model was given for it. */
  const send = async (fileName: string, content: string): Promise<string> => {
    const before = rig.llm.requests.length;
    rig.llm.script({ content: 'Got it.' });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, caption: 'keep this', document: { content, fileName, mimeType: 'text/plain' } });
    await rig.llm.waitForRequests(before + 1, 20_000);
    return userTexts(rig.llm).at(-1) ?? '';
  };

  it('stores the next file in the workspace when the container made uploads/ a link to a host folder', async () => {
    const planted = await exec(`rm -rf uploads; ln -s ${hostDir} uploads && echo planted`);
    expect(planted.output).toContain('planted');
    const prompt = await send('notes.txt', 'meeting at noon');
    const stored = path.join(workspace, /- notes\.txt \(text\/plain, 15 B\): (uploads\/\S+)/.exec(prompt)?.[1] ?? '-');
    expect(readFileSync(stored, 'utf8')).toBe('meeting at noon');
    expect(readdirSync(hostDir)).toEqual([]);
    // The container's link is kept aside (renamed, not followed), and uploads/ is a real folder it owns.
    const moved = readdirSync(workspace).find((name) => name.startsWith('uploads.moved-')) ?? '';
    expect(lstatSync(path.join(workspace, moved)).isSymbolicLink()).toBe(true);
    const owner = await exec('stat -c "%u %F" uploads && cat uploads/*-notes.txt');
    expect(owner.output).toContain('1000 directory');
    expect(owner.output).toContain('meeting at noon');
  }, 60_000);

  it('does not block on a FIFO the container put at uploads/', async () => {
    await exec('rm -rf uploads; mkfifo uploads');
    const prompt = await send('second.txt', 'second file');
    expect(prompt).toMatch(/- second\.txt \(text\/plain, 11 B\): uploads\/\S+-second\.txt/);
    expect(readdirSync(hostDir)).toEqual([]);
  }, 60_000);

  it('picks another name when the container planted FIFOs at the names the next uploads would take', async () => {
    // Uploads are named <milliseconds in base 36>-<name>: plant a FIFO at each name of the next 10 seconds.
    const planted = await exec(`rm -rf uploads; mkdir uploads && python3 -c "
import os, time
def b36(n):
  s = ''
  while n: n, r = divmod(n, 36); s = '0123456789abcdefghijklmnopqrstuvwxyz'[r] + s
  return s
now = int(time.time() * 1000)
for i in range(10000): os.mkfifo('uploads/%s-planned.txt' % b36(now + i))
print('planted')"`);
    expect(planted.output).toContain('planted');
    const prompt = await send('planned.txt', 'the real file');
    const stored = path.join(workspace, /- planned\.txt \(text\/plain, 13 B\): (uploads\/\S+)/.exec(prompt)?.[1] ?? '-');
    expect(lstatSync(stored).isFile()).toBe(true);
    expect(readFileSync(stored, 'utf8')).toBe('the real file');
    await exec('rm -rf uploads');
  }, 60_000);

  it('tells the model the file was not saved when the workspace is full', async () => {
    // Small blocks, so the filesystem is full to the last kilobyte.
    await exec('dd if=/dev/zero of=fill bs=4k status=none; true');
    const prompt = await send('third.txt', 'x'.repeat(200_000));
    expect(prompt).toMatch(/\[A file the person sent, third\.txt, was not saved: the workspace is full \(\d+ MB of 64 MB\); delete files or raise tools\.sandbox\.workspace_mb\.\]/);
    await exec('rm fill');
  }, 60_000);
});
