import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Daemon as App } from '../../src/daemon.js';
import { runCli } from '../../src/cli/run.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { captureIo } from '../helpers/io.js';
import { CHANGES_KEPT_PER_FILE } from '../../src/memory/history.js';

const origin = { channel: 'telegram', chatId: '77', userId: '77' };

describe('memory history, undo and the hand-edit guard', () => {
  let fake: FakeOpenAI;
  let t: TestApp;
  let app: App;
  let file: (name: string) => string;

  beforeEach(async () => {
    fake = await startOpenAiServer();
    t = await makeTestApp(fake);
    app = t.app;
    file = (name) => path.join(app.config.memory_dir, name);
  });

  afterEach(async () => {
    await app.close(0);
    await fake.close();
  });

  const write = (args: Record<string, unknown>) => ({ toolCalls: [{ name: 'memory_write', arguments: args }] });
  const read = (target: string) => ({ toolCalls: [{ name: 'memory_read', arguments: { path: target } }] });
  const lastTool = () => {
    const messages = fake.requests.at(-1)?.body.messages ?? [];
    return String(messages.filter((message) => message.role === 'tool').at(-1)?.content ?? '');
  };
  const undo = () => {
    const conversationId = app.conversations.resolve(origin.channel, origin.chatId);
    return app.commands.get('undo')!.run({ ...origin, userId: '77', args: '', conversationId });
  };

  it('records every write with the previous content and the conversation', async () => {
    writeFileSync(file('todo.md'), '- milk\n');
    fake.script(read('todo.md'), write({ path: 'todo.md', content: '- milk\n- eggs\n' }), { content: 'ok' });
    await app.turns.start({ text: 'add eggs', origin, source: 'chat' });
    const rows = app.db.prepare('SELECT path, previous, content, conversation_id AS conversationId, kind FROM memory_history').all();
    expect(rows).toEqual([{ path: 'todo.md', previous: '- milk\n', content: '- milk\n- eggs\n', conversationId: app.conversations.resolve('telegram', '77'), kind: 'write' }]);
  });

  it('keeps the newest CHANGES_KEPT_PER_FILE changes of each file: a log appended to without end stays bounded, and its last change still reverts', async () => {
    for (let day = 1; day <= CHANGES_KEPT_PER_FILE + 20; day += 1) await app.memory.write('log.md', `day ${day}\n`, { mode: 'append' });
    await app.memory.write('other.md', 'kept\n');
    const counts = app.db.prepare('SELECT path, COUNT(*) AS n, MIN(content) IS NOT NULL AS whole FROM memory_history GROUP BY path ORDER BY path').all();
    expect(counts).toEqual([{ path: 'log.md', n: CHANGES_KEPT_PER_FILE, whole: 1 }, { path: 'other.md', n: 1, whole: 1 }]);
    const [newest] = app.history.list({ path: 'log.md', limit: 1 });
    expect(newest?.content?.endsWith(`day ${CHANGES_KEPT_PER_FILE + 20}\n`)).toBe(true);
    expect((await app.history.revert(newest!)).success).toBe(true);
    expect(readFileSync(file('log.md'), 'utf8').endsWith(`day ${CHANGES_KEPT_PER_FILE + 19}\n`)).toBe(true);
    expect(app.db.prepare("SELECT COUNT(*) AS n FROM memory_history WHERE path = 'log.md'").get()).toEqual({ n: CHANGES_KEPT_PER_FILE });
  });

  it('drops a consolidation whole: once one of its changes is past the kept ones, undoing it puts back none of its files', async () => {
    await app.memory.write('a.md', 'tidied a\n', { batch: 'k1' });
    await app.memory.write('b.md', 'tidied b\n', { batch: 'k1' });
    expect(app.history.batch('k1')).toHaveLength(2);
    for (let index = 0; index < CHANGES_KEPT_PER_FILE - 1; index += 1) await app.memory.write('a.md', `line ${index}\n`, { mode: 'append' });
    expect(app.history.batch('k1')).toHaveLength(2);
    await app.memory.write('a.md', 'one more\n', { mode: 'append' });
    expect(app.history.batch('k1')).toEqual([]);
    expect(await app.history.revertBatch('k1')).toEqual({ success: false, error: 'nothing of change k1 is left to undo' });
    expect(readFileSync(file('b.md'), 'utf8')).toBe('tidied b\n');
  });

  it('/undo restores the previous content, and a second /undo the one before', async () => {
    fake.script(write({ path: 'notes.md', content: 'one\n' }), { content: 'ok' });
    await app.turns.start({ text: 'note one', origin, source: 'chat' });
    fake.script(write({ path: 'notes.md', content: 'two\n', mode: 'append' }), { content: 'ok' });
    await app.turns.start({ text: 'note two', origin, source: 'chat' });
    expect(readFileSync(file('notes.md'), 'utf8')).toBe('one\ntwo\n');
    expect(await undo()).toMatch(/Undone: notes\.md is back to how it was/);
    expect(readFileSync(file('notes.md'), 'utf8')).toBe('one\n');
    expect(await undo()).toMatch(/notes\.md was created by that change, so it is removed again/);
    expect(existsSync(file('notes.md'))).toBe(false);
    expect(await undo()).toBe('There is no memory change from this chat to undo.');
    // Search no longer finds the removed file (the chat that asked for it still mentions it).
    expect(app.memory.search('one').filter((hit) => hit.conversation === undefined)).toEqual([]);
  });

  it("/undo only reverts this chat's changes", async () => {
    fake.script(write({ path: 'other.md', content: 'from another chat' }), { content: 'ok' });
    await app.turns.start({ text: 'note', origin: { channel: 'telegram', chatId: '88' }, source: 'chat' });
    expect(await undo()).toBe('There is no memory change from this chat to undo.');
    expect(readFileSync(file('other.md'), 'utf8')).toBe('from another chat');
  });

  it('/undo refuses when the file was edited by hand after the change', async () => {
    fake.script(write({ path: 'plan.md', content: 'assistant version\n' }), { content: 'ok' });
    await app.turns.start({ text: 'plan', origin, source: 'chat' });
    writeFileSync(file('plan.md'), 'assistant version\nmy own line\n');
    expect(await undo()).toMatch(/^Not undone: plan\.md changed after change #\d+/);
    expect(readFileSync(file('plan.md'), 'utf8')).toBe('assistant version\nmy own line\n');
  });

  it("a hand edit after the assistant's read blocks its blind overwrite, and a re-read lets it through", async () => {
    writeFileSync(file('profile.md'), 'Name: Sam\n');
    fake.script(read('profile.md'), { content: 'read it' });
    await app.turns.start({ text: 'look at my profile', origin, source: 'chat' });
    writeFileSync(file('profile.md'), 'Name: Sam\nAllergy: peanuts\n'); // the person edits by hand
    fake.script(write({ path: 'profile.md', content: 'Name: Sam\nCity: Lyon\n' }), { content: 'ok' });
    await app.turns.start({ text: 'I moved to Lyon', origin, source: 'chat' });
    expect(lastTool()).toMatch(/Not written: profile\.md changed on disk since you last read it \(probably edited by hand\)\. Read it again with memory_read/);
    expect(readFileSync(file('profile.md'), 'utf8')).toBe('Name: Sam\nAllergy: peanuts\n');
    fake.script(read('profile.md'), write({ path: 'profile.md', content: 'Name: Sam\nAllergy: peanuts\nCity: Lyon\n' }), { content: 'ok' });
    await app.turns.start({ text: 'try again', origin, source: 'chat' });
    expect(readFileSync(file('profile.md'), 'utf8')).toBe('Name: Sam\nAllergy: peanuts\nCity: Lyon\n');
  });

  it('refuses to overwrite an existing file the conversation never read, but lets appends through', async () => {
    writeFileSync(file('diary.md'), 'written by hand\n');
    fake.script(write({ path: 'diary.md', content: 'replaced' }), { content: 'ok' });
    await app.turns.start({ text: 'diary', origin, source: 'chat' });
    expect(lastTool()).toMatch(/diary\.md already exists and you have not read it in this conversation/);
    fake.script(write({ path: 'diary.md', content: 'added', mode: 'append' }), { content: 'ok' });
    await app.turns.start({ text: 'diary', origin, source: 'chat' });
    expect(readFileSync(file('diary.md'), 'utf8')).toBe('written by hand\nadded');
  });

  it('lets the assistant overwrite what it wrote itself in the same conversation', async () => {
    fake.script(write({ path: 'list.md', content: 'a' }), write({ path: 'list.md', content: 'b' }), { content: 'ok' });
    await app.turns.start({ text: 'list', origin, source: 'chat' });
    expect(readFileSync(file('list.md'), 'utf8')).toBe('b');
  });

  it('familiar memory log, diff and revert', async () => {
    writeFileSync(file('recipes.md'), 'pancakes\nsoup\n');
    fake.script(read('recipes.md'), write({ path: 'recipes.md', content: 'pancakes\nsalad\n' }), { content: 'ok' });
    await app.turns.start({ text: 'swap soup for salad', origin, source: 'chat' });
    const id = (app.db.prepare('SELECT id FROM memory_history').get() as { id: number }).id;
    const log = captureIo();
    expect(await runCli(['memory', 'log', '--config', t.configPath], log)).toBe(0);
    expect(log.out()).toMatch(new RegExp(`#${id}  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d  recipes\\.md  changed  by the assistant in telegram-77-`));
    const diff = captureIo();
    expect(await runCli(['memory', 'diff', String(id), '--config', t.configPath], diff)).toBe(0);
    expect(diff.out()).toContain(' pancakes\n-soup\n+salad\n');
    const revert = captureIo();
    expect(await runCli(['memory', 'revert', String(id), '--config', t.configPath], revert)).toBe(0);
    expect(readFileSync(file('recipes.md'), 'utf8')).toBe('pancakes\nsoup\n');
    const again = captureIo();
    expect(await runCli(['memory', 'revert', String(id), '--config', t.configPath], again)).toBe(1);
    expect(again.err()).toMatch(/already reverted/);
  });
});
