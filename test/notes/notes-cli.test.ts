import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { addDays, dayOf } from '../../src/notes/dates.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { tempDir, writeTestConfig } from '../helpers/app.js';
import { captureIo } from '../helpers/io.js';

describe('familiar tasks and familiar notes', () => {
  let dir: string;
  let config: string;
  let fake: FakeOpenAI;
  const today = dayOf(Date.now(), 'Europe/Paris');

  beforeAll(async () => {
    fake = await startOpenAiServer();
    dir = tempDir('familiar-notes-cli-');
    config = writeTestConfig(dir, fake, { scheduler: { default_chat: 'telegram:9' } });
  });
  afterAll(async () => {
    await fake.close();
  });

  const cli = async (...args: string[]) => {
    const io = captureIo();
    const code = await runCli([...args, '--config', config], io);
    return { code, out: io.out(), err: io.err() };
  };

  it('adds tasks in plain words, lists them, and ticks one', async () => {
    const added = await cli('tasks', 'add', 'renew passport in 3 days');
    expect(added.code).toBe(0);
    expect(added.out).toMatch(new RegExp(`^[a-z0-9]{6}  - \\[ \\] renew passport 📅 ${addDays(today, 3)} 🆔 [a-z0-9]{6}  \\(tasks\\.md\\)\\n$`));
    const ref = added.out.slice(0, 6);
    await cli('tasks', 'add', 'remind me to call Mum every Sunday', '--list', 'family');
    const list = await cli('tasks', 'list');
    expect(list.out).toContain('renew passport');
    expect(list.out).toMatch(/call Mum 🔁 every Sunday 📅 \d{4}-\d\d-\d\d ⏰ \d{4}-\d\d-\d\d 09:00/);
    expect(list.out).toContain('(family)');
    const json = JSON.parse((await cli('tasks', 'list', '--json')).out) as Array<{ ref: string; list: string; reminder: string | null }>;
    expect(json.find((task) => task.list === 'family')?.reminder).toMatch(/ 09:00$/);
    const done = await cli('tasks', 'done', ref);
    expect(done.code).toBe(0);
    expect(readFileSync(path.join(dir, 'memory', 'tasks.md'), 'utf8')).toContain(`- [x] renew passport 📅 ${addDays(today, 3)} 🆔 ${ref} ✅ ${today}`);
    expect((await cli('tasks', 'list')).out).not.toContain('renew passport');
    expect((await cli('tasks', 'list', '--done')).out).toContain('renew passport');
  });

  it('a reminder added here is a job the daemon will send to scheduler.default_chat', async () => {
    const jobs = await cli('jobs', 'list', '--json');
    const parsed = JSON.parse(jobs.out) as Array<{ id: string; kind: string; prompt: string }>;
    expect(parsed).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'reminder', prompt: 'call Mum' })]));
  });

  it('shows, lists and searches notes', async () => {
    const notes = path.join(dir, 'memory', 'notes');
    await import('node:fs').then(({ mkdirSync, writeFileSync }) => {
      mkdirSync(notes, { recursive: true });
      writeFileSync(path.join(notes, 'Recipes.md'), '---\ntitle: Recipes\ntags: [food]\n---\nPancakes: flour, milk, eggs.\n');
      writeFileSync(path.join(notes, 'Plain.md'), 'A note written by hand, with no front matter. #misc\n');
    });
    const list = await cli('notes', 'list');
    expect(list.out).toContain('"Recipes" (notes/Recipes.md · tags food');
    expect(list.out).toContain('"Plain" (notes/Plain.md · tags misc');
    expect((await cli('notes', 'list', '--tag', 'food')).out).not.toContain('Plain');
    const search = await cli('notes', 'search', 'pancakes');
    expect(search.out).toContain('«Pancakes»');
    expect((await cli('notes', 'show', 'recipes')).out).toBe('---\ntitle: Recipes\ntags: [food]\n---\nPancakes: flour, milk, eggs.\n');
    const missing = await cli('notes', 'show', 'nothing here');
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('No note "nothing here"');
    expect((await cli('notes', 'frobnicate')).code).toBe(2);
  });

  it('familiar chat answers the chat commands and lists them in /help', async () => {
    const io = captureIo();
    const stdin = new PassThrough();
    stdin.end('/help\n/tasks\n/exit\n');
    const code = await runCli(['chat', '--config', config], { ...io, stdin });
    expect(code).toBe(0);
    for (const command of ['/task —', '/tasks —', '/save —', '/plan —', '/scrape —', '/email —']) expect(io.out()).toContain(command);
    expect(io.out()).toContain('call Mum');
    expect(fake.requests).toHaveLength(0);
  });
});
