// The file tools on the host side of a conversation's workspace, seen from the container too.
import { readFileSync, statSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Daemon as App } from '../../src/daemon.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { TEST_IMAGE, TEST_LABEL, describeDocker } from '../helpers/docker.js';

const origin = { channel: 'cli', chatId: 'test', userId: 'owner' };

describeDocker('sandbox file tools', () => {
  let fake: FakeOpenAI;
  let t: TestApp;
  let app: App;
  let workspace: string;

  beforeAll(async () => {
    fake = await startOpenAiServer();
    t = await makeTestApp(fake, { tools: { sandbox: { image: TEST_IMAGE, pool_size: 0, write_max_bytes: 2048, labels: { [TEST_LABEL]: 'files' } } } });
    app = t.app;
    await app.start();
    workspace = path.join(t.dir, 'data', 'workspaces', 'conv-f');
  });

  afterAll(async () => {
    await app?.close(0);
    await fake?.close();
  });

  const call = async (name: string, args: Record<string, unknown>, conversationId = 'conv-f') =>
    (await app.tools.execute({ name, arguments: args, conversationId, turnId: 'turn', origin })).result;

  it('says the workspace is empty before anything is written', async () => {
    const result = await call('listdir', {}, 'conv-nothing');
    expect(result.success).toBe(false);
    expect(result.output).toContain('The workspace is empty');
  });

  it('writes a file with its parent folders and the container can read and change it', async () => {
    const write = await call('write', { path: 'src/app.py', content: 'print("from write")\n' });
    expect(write).toMatchObject({ success: true, output: 'Created src/app.py (20 bytes).' });
    const run = await call('sandbox_exec', { command: 'python3 src/app.py && echo more >> src/app.py && mkdir -p src/out && touch src/out/x' });
    expect(run.output).toContain('from write');
    expect(run.success).toBe(true);
    expect(readFileSync(path.join(workspace, 'src', 'app.py'), 'utf8')).toBe('print("from write")\nmore\n');
  });

  it('reads with line numbers, offset and limit', async () => {
    await call('write', { path: 'lines.txt', content: ['one', 'two', 'three', 'four'].join('\n') + '\n' });
    expect((await call('read', { path: 'lines.txt' })).output).toBe('1\tone\n2\ttwo\n3\tthree\n4\tfour');
    const part = await call('read', { path: 'lines.txt', offset: 2, limit: 2 });
    expect(part.output).toBe('2\ttwo\n3\tthree\n(lines 2-3 of 4; call read with offset 4 for more)');
    expect((await call('read', { path: 'missing.txt' })).output).toContain('missing.txt does not exist');
  });

  it('refuses a write above write_max_bytes', async () => {
    const result = await call('write', { path: 'big.txt', content: 'x'.repeat(4096) });
    expect(result.success).toBe(false);
    expect(result.output).toContain('write accepts at most 2048');
  });

  it('edits one unique occurrence', async () => {
    await call('write', { path: 'edit.txt', content: 'alpha\nbeta\ngamma\n' });
    const result = await call('edit', { path: 'edit.txt', old: 'beta', new: 'BETA' });
    expect(result).toMatchObject({ success: true, output: 'Edited edit.txt at line 2.' });
    expect(readFileSync(path.join(workspace, 'edit.txt'), 'utf8')).toBe('alpha\nBETA\ngamma\n');
  });

  it('fails an edit whose old text is ambiguous or missing, and changes nothing', async () => {
    await call('write', { path: 'twice.txt', content: 'x = 1\ny = 2\nx = 1\n' });
    const before = statSync(path.join(workspace, 'twice.txt')).mtimeMs;
    const ambiguous = await call('edit', { path: 'twice.txt', old: 'x = 1', new: 'x = 3' });
    expect(ambiguous.success).toBe(false);
    expect(ambiguous.output).toContain('occurs 2 times');
    const missing = await call('edit', { path: 'twice.txt', old: 'z = 9', new: 'z = 0' });
    expect(missing.success).toBe(false);
    expect(missing.output).toContain('was not found');
    expect(readFileSync(path.join(workspace, 'twice.txt'), 'utf8')).toBe('x = 1\ny = 2\nx = 1\n');
    expect(statSync(path.join(workspace, 'twice.txt')).mtimeMs).toBe(before);
  });

  it('globs newest first, at any depth for a bare pattern', async () => {
    await call('write', { path: 'g/old.md', content: 'old' });
    await call('write', { path: 'g/deep/new.md', content: 'new' });
    await call('write', { path: 'g/other.txt', content: 'txt' });
    utimesSync(path.join(workspace, 'g', 'old.md'), new Date('2020-01-01'), new Date('2020-01-01'));
    expect((await call('glob', { pattern: '*.md', path: 'g' })).output).toBe('g/deep/new.md\ng/old.md');
    expect((await call('glob', { pattern: 'g/*.{md,txt}' })).output.split('\n').sort()).toEqual(['g/old.md', 'g/other.txt']);
    expect((await call('glob', { pattern: '**/*.py' })).output).toBe('src/app.py');
  });

  it('greps as file:line: text, filtered by include', async () => {
    await call('write', { path: 'g/code.py', content: 'import os\nTODO = 1\n# TODO later\n' });
    const result = await call('grep', { pattern: 'TODO', include: '*.py' });
    expect(result.output).toBe('g/code.py:2: TODO = 1\ng/code.py:3: # TODO later');
    const bad = await call('grep', { pattern: '(unclosed' });
    expect(bad.success).toBe(false);
    expect(bad.output).toContain('not a valid regular expression');
  });

  it('lists a folder with sizes and times, also as "list"', async () => {
    const listing = await call('listdir', { path: 'g' });
    expect(listing.success).toBe(true);
    expect(listing.output).toMatch(/^g \(name, size, modified\):\ndeep\/\t-\t\d{4}-/);
    expect(listing.output).toMatch(/\nold\.md\t3 bytes\t2020-01-01T00:00:00\.000Z/);
    const alias = await call('list', { path: 'g' });
    expect(alias.output).toBe(listing.output);
  });
});
