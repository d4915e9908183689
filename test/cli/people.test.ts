import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { tempDir } from '../helpers/app.js';
import { captureIo } from '../helpers/io.js';

const CONFIG = `# our assistant
llm:
  model: small   # cheap one
channels:
  telegram:
    token: abc
    allowed_users: [1]   # me
`;

function setup(config = CONFIG) {
  const dir = tempDir();
  const file = path.join(dir, 'config.yaml');
  writeFileSync(file, config);
  const run = async (...args: string[]) => {
    const io = captureIo();
    const code = await runCli(['people', ...args, '--config', file], io);
    return { code, out: io.out(), err: io.err() };
  };
  return { dir, file, run, text: () => readFileSync(file, 'utf8') };
}

describe('familiar people', () => {
  it('adds the owner, then a member, keeping the file\'s comments', async () => {
    const { run, text } = setup();
    expect((await run('add', 'ann', '--role', 'owner', '--telegram', '1')).code).toBe(0);
    const added = await run('add', 'ben', '--telegram', '2', '--timezone', 'Europe/Berlin', '--daily-tokens', '5000');
    expect(added.code).toBe(0);
    expect(added.out).toMatch(/^added ben \(member\) to people: in .*config\.yaml; their memory folder is memory_dir\/people\/ben\/\n/);
    expect(text()).toContain('# our assistant');
    expect(text()).toContain('# cheap one');
    expect(text()).toContain('# me');
    const listed = await run('list');
    expect(listed.out).toBe('ann  owner  telegram 1; console\nben  member  telegram 2, Europe/Berlin, 5000 tokens a day\n');
  });

  it('refuses a member before there is an owner', async () => {
    const { run, text } = setup();
    const result = await run('add', 'ben', '--telegram', '2');
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/there is no owner yet/);
    expect(text()).toBe(CONFIG);
  });

  it('links another channel\'s id to a person', async () => {
    const { run } = setup();
    await run('add', 'ann', '--role', 'owner', '--telegram', '1');
    expect((await run('link', 'ann', '--discord', '300000000000000001')).code).toBe(0);
    expect((await run('link', 'ann', '--telegram', '11')).code).toBe(0);
    expect((await run('list')).out).toBe('ann  owner  telegram 1, 11; console; discord 300000000000000001\n');
  });

  it('refuses an id another person already has, naming both, and leaves the file alone', async () => {
    const { run, text } = setup();
    await run('add', 'ann', '--role', 'owner', '--telegram', '1');
    await run('add', 'ben', '--telegram', '2');
    const before = text();
    const result = await run('link', 'ben', '--telegram', '1');
    expect(result.code).toBe(2);
    expect(result.err).toContain("people.ben.ids.telegram: telegram id 1 is also ann's (people.ann.ids.telegram)");
    expect(text()).toBe(before);
  });

  it('removes a member, keeping their folder and saying where it is; never the owner', async () => {
    const { run } = setup();
    await run('add', 'ann', '--role', 'owner', '--telegram', '1');
    await run('add', 'ben', '--telegram', '2');
    const owner = await run('remove', 'ann');
    expect(owner.code).toBe(2);
    expect(owner.err).toMatch(/ann is the owner and stays/);
    const removed = await run('remove', 'ben');
    expect(removed.code).toBe(0);
    expect(removed.out).toMatch(/removed ben from people: .* Their folder is kept: .*people\/ben/);
    expect((await run('list')).out).toBe('ann  owner  telegram 1; console\n');
  });
});
