import { appendFileSync, mkdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';
import { MemoryStore } from '../../src/memory/store.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp, tempDir, type TestApp } from '../helpers/app.js';

/**
 * A message reaches the daemon through the event loop (a socket read): by then the loop has taken every change the
 * system reported before it. Two turns of the loop, so the wait holds from whichever phase the test runs in.
 */
const nextMessage = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

describe('the watched memory folder', () => {
  let dir: string;
  let root: string;
  let db: Database;
  let memory: MemoryStore;

  beforeEach(() => {
    dir = tempDir();
    root = path.join(dir, 'memory');
    mkdirSync(path.join(root, 'notes'), { recursive: true });
    db = openDatabase(path.join(dir, 'data'));
    memory = new MemoryStore(root, db);
  });

  afterEach(() => {
    memory.close();
    db.close();
  });

  const promptText = () => memory.forPrompt(12_000, true).snapshot.text;

  it('sees a file in a subfolder edited in place, which does not move any folder mtime, at the next message', async () => {
    writeFileSync(path.join(root, 'notes', 'garden.md'), 'Tomatoes in the south bed.\n');
    const past = new Date(Date.now() - 60_000);
    utimesSync(path.join(root, 'notes'), past, past);
    utimesSync(root, past, past);
    const folderTimes = () => [statSync(root).mtimeMs, statSync(path.join(root, 'notes')).mtimeMs];
    const before = folderTimes();
    expect(memory.watch()).toBe(true);
    expect(promptText()).toContain('Tomatoes in the south bed.');
    appendFileSync(path.join(root, 'notes', 'garden.md'), 'Basil by the door.\n');
    expect(folderTimes()).toEqual(before);
    await nextMessage();
    expect(promptText()).toContain('Basil by the door.');
  });

  it('keeps the prompt\'s newest-first order through writes, hand edits, removals and a removed folder', async () => {
    const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 0, minutes));
    for (let index = 0; index < 30; index += 1) {
      const file = path.join(root, index % 3 === 0 ? 'notes' : '', `n${index}.md`);
      writeFileSync(file, `note ${index}`);
      utimesSync(file, at(index), at(index));
    }
    expect(memory.watch()).toBe(true);
    const shown = () => memory.forPrompt(100_000, true).snapshot.included;
    const expected = () => memory.list().slice().sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : 1)).map((file) => file.path);
    expect(shown()).toEqual(expected());
    await memory.write('n4.md', 'written again');
    await memory.write('notes/new.md', 'a new note');
    writeFileSync(path.join(root, 'n7.md'), 'edited by hand');
    const later = new Date(Date.now() + 3_600_000);
    utimesSync(path.join(root, 'n7.md'), later, later);
    rmSync(path.join(root, 'n8.md'));
    await nextMessage();
    expect(shown()).toEqual(expected());
    expect(shown().slice(0, 1)).toEqual(['n7.md']);
    rmSync(path.join(root, 'notes'), { recursive: true });
    await nextMessage();
    expect(shown()).toEqual(expected());
    expect(shown().some((file) => file.startsWith('notes/'))).toBe(false);
  });

  it('sees a new subfolder and its file, a removed file and a renamed folder, at the next message', async () => {
    writeFileSync(path.join(root, 'notes', 'old.md'), 'old note');
    memory.watch();
    expect(memory.list().map((file) => file.path)).toEqual(['notes/old.md']);
    mkdirSync(path.join(root, 'people', 'sam'), { recursive: true });
    writeFileSync(path.join(root, 'people', 'sam', 'profile.md'), 'Sam likes jazz.');
    rmSync(path.join(root, 'notes', 'old.md'));
    await nextMessage();
    expect(memory.list().map((file) => file.path)).toEqual(['people/sam/profile.md']);
    renameSync(path.join(root, 'people'), path.join(root, 'household'));
    await nextMessage();
    expect(memory.list().map((file) => file.path)).toEqual(['household/sam/profile.md']);
    // The moved folder is watched under its new name: an edit inside it is seen too.
    appendFileSync(path.join(root, 'household', 'sam', 'profile.md'), '\nSam plays the drums.');
    await nextMessage();
    expect(promptText()).toContain('Sam plays the drums.');
  });

  it('sees its own writes at once, in a folder it has just made too', async () => {
    memory.watch();
    await memory.write('projects/kitchen/plan.md', 'Paint the walls green.');
    expect(memory.list().map((file) => file.path)).toEqual(['projects/kitchen/plan.md']);
    expect(promptText()).toContain('Paint the walls green.');
    await memory.remove('projects/kitchen/plan.md');
    expect(memory.list()).toEqual([]);
  });

  it('leaves hidden files, links and other kinds of files out, as the unwatched listing does', async () => {
    memory.watch();
    writeFileSync(path.join(root, '.draft.md.swp'), 'editor state');
    writeFileSync(path.join(root, 'photo.jpg'), 'not text');
    mkdirSync(path.join(root, '.git'));
    writeFileSync(path.join(root, '.git', 'HEAD.md'), 'ref');
    writeFileSync(path.join(dir, 'outside.md'), 'outside the folder');
    const { symlinkSync } = await import('node:fs');
    symlinkSync(path.join(dir, 'outside.md'), path.join(root, 'link.md'));
    writeFileSync(path.join(root, 'kept.md'), 'kept');
    await nextMessage();
    expect(memory.list().map((file) => file.path)).toEqual(['kept.md']);
  });

  it('returns the same memory section while nothing changed, and a new one when a filter says its input changed', async () => {
    writeFileSync(path.join(root, 'page.md'), 'A saved page.');
    let hidden = new Set<string>();
    memory.addPromptFilter((file) => !hidden.has(file), () => hidden);
    memory.watch();
    const first = memory.forPrompt(12_000, true);
    expect(memory.forPrompt(12_000, true)).toBe(first);
    expect(first.snapshot.text).toContain('A saved page.');
    hidden = new Set(['page.md']);
    expect(memory.forPrompt(12_000, true).snapshot.text).not.toContain('A saved page.');
  });

  it('stops watching when closed and reads the folder on every use again', async () => {
    memory.watch();
    memory.close();
    writeFileSync(path.join(root, 'notes', 'now.md'), 'written after close');
    // No wait: the unwatched store reads the folder itself.
    expect(memory.list().map((file) => file.path)).toEqual(['notes/now.md']);
  });
});

describe('the running daemon and a hand edit', () => {
  let fake: FakeOpenAI;
  let t: TestApp;

  beforeEach(async () => {
    fake = await startOpenAiServer();
    t = await makeTestApp(fake);
  });

  afterEach(async () => {
    await t.app.close(0);
    await fake.close();
  });

  it('puts a note edited in place by hand in the prompt of the next turn', async () => {
    const notes = path.join(t.dir, 'memory', 'notes');
    mkdirSync(notes, { recursive: true });
    writeFileSync(path.join(notes, 'car.md'), 'The car is blue.\n');
    await t.app.start();
    fake.script({ content: 'noted' }, { content: 'noted again' });
    await t.app.turns.start({ text: 'hi', origin: { channel: 'cli', chatId: 'test' }, source: 'cli' });
    expect(fake.lastSystemPrompt()).toContain('The car is blue.');
    writeFileSync(path.join(notes, 'car.md'), 'The car is red now.\n');
    await nextMessage();
    await t.app.turns.start({ text: 'what colour is the car?', origin: { channel: 'cli', chatId: 'test' }, source: 'cli' });
    expect(fake.lastSystemPrompt()).toContain('The car is red now.');
    expect(fake.lastSystemPrompt()).not.toContain('The car is blue.');
  });
});
