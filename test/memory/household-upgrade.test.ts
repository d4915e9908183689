// The first start with people: makes a single person's memory the owner's, with nothing lost, and resumes a cut move.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import type { Daemon } from '../../src/daemon.js';
import { createLogger } from '../../src/log.js';
import { upgradeToHousehold } from '../../src/memory/household-upgrade.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp, tempDir } from '../helpers/app.js';

const PEOPLE = { ann: { role: 'owner', ids: { telegram: [1001] } }, ben: { role: 'member', ids: { telegram: [1002] } } };
const quiet = createLogger({ level: 'silent', format: 'json', secrets: [] });

/** Every file under `root` (links not followed) with its bytes. */
function filesOf(root: string, prefix = ''): Map<string, Buffer> {
  const found = new Map<string, Buffer>();
  for (const entry of readdirSync(path.join(root, prefix), { withFileTypes: true })) {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) for (const [file, bytes] of filesOf(root, relative)) found.set(file, bytes);
    else found.set(relative, readFileSync(path.join(root, relative)));
  }
  return found;
}

describe('upgrading a single-person data folder to a household', () => {
  let llm: FakeOpenAI;
  let dir: string;
  let before: Map<string, Buffer>;
  let app: Daemon;

  beforeAll(async () => {
    llm = await startOpenAiServer();
    dir = tempDir();
    const single = await makeTestApp(llm, {}, dir, { mode: 'command' });
    const memory = path.join(dir, 'memory');
    mkdirSync(path.join(memory, 'notes/deep'), { recursive: true });
    writeFileSync(path.join(memory, 'profile.md'), '# Ann\nLikes tea.\n');
    writeFileSync(path.join(memory, 'notes/deep/a.md'), 'é ü 🙂 exact bytes\r\nno final newline');
    writeFileSync(path.join(memory, 'tasks.md'), '- [ ] water the plants\n');
    writeFileSync(path.join(memory, '.hidden.txt'), 'kept too');
    await single.app.memory.write('notes/written.md', 'through the store\n', { conversationId: 'c1' });
    expect(single.app.scheduler.create({ id: 'morning', prompt: 'say good morning', cron: '0 8 * * *', source: 'cli' }).success).toBe(true);
    expect(single.app.scheduler.create({ id: 'later', prompt: 'remind me', run_at: '2099-01-01T10:00:00Z', kind: 'reminder', source: 'chat', origin: { channel: 'telegram', chatId: '1002', userId: '1002' } }).success).toBe(true);
    before = filesOf(memory);
    await single.app.close(500);
    app = (await makeTestApp(llm, { people: PEOPLE }, dir, { mode: 'command' })).app;
  });

  afterAll(async () => {
    await app.close(500);
    await llm.close();
  });

  it('moves every file, byte for byte, into people/<owner>/', () => {
    const after = filesOf(path.join(dir, 'memory', 'people', 'ann'));
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [file, bytes] of before) expect(after.get(file)?.equals(bytes), file).toBe(true);
  });

  it('leaves only people/ and shared/ at the root, with a folder for every person', () => {
    const memory = path.join(dir, 'memory');
    expect(readdirSync(memory).sort()).toEqual(['people', 'shared']);
    expect(statSync(path.join(memory, 'people', 'ben')).isDirectory()).toBe(true);
  });

  it('keeps every job, now the owner\'s, scheduled as before', () => {
    expect(app.scheduler.get('morning')).toMatchObject({ person: 'ann', cron: '0 8 * * *', enabled: true });
    expect(app.scheduler.get('later')).toMatchObject({ person: 'ann', kind: 'reminder', enabled: true });
    expect(app.scheduler.get('morning')?.nextRunAt).toBeGreaterThan(Date.now());
  });

  it('runs an old job as the owner, with the owner\'s memory in its prompt', async () => {
    llm.script({ content: 'Good morning, Ann.' });
    const run = await app.scheduler.runNow('morning');
    expect(run).toMatchObject({ success: true, value: { status: 'ok' } });
    expect(llm.lastSystemPrompt()).toContain('Likes tea.');
    const db = openDatabase(path.join(dir, 'data'));
    try {
      expect(db.prepare("SELECT person FROM turns WHERE conversation_id = 'job-morning'").all()).toEqual([{ person: 'ann' }]);
    } finally {
      db.close();
    }
  });

  it('keeps the write history pointing at the moved file, so undo still works', () => {
    const db = openDatabase(path.join(dir, 'data'));
    try {
      expect(db.prepare('SELECT path FROM memory_history').all()).toEqual([{ path: 'people/ann/notes/written.md' }]);
    } finally {
      db.close();
    }
  });

  it('does nothing on the next start', () => {
    const db = openDatabase(path.join(dir, 'data'));
    try {
      expect(upgradeToHousehold({ root: path.join(dir, 'memory'), db, owner: 'ann', people: ['ann', 'ben'], log: quiet })).toBe(0);
    } finally {
      db.close();
    }
  });
});

describe('a move cut short', () => {
  it('resumes from its record: what moved stays, the rest follows, nothing is lost or doubled', () => {
    const dir = tempDir();
    const root = path.join(dir, 'memory');
    mkdirSync(path.join(root, 'notes'), { recursive: true });
    writeFileSync(path.join(root, 'profile.md'), 'me');
    writeFileSync(path.join(root, 'notes/x.md'), 'x');
    writeFileSync(path.join(root, 'tasks.md'), 't');
    const db = openDatabase(path.join(dir, 'data'));
    try {
      // The plan was written, one entry moved, then the process died before marking it or moving the rest.
      const now = Date.now();
      for (const name of ['notes', 'profile.md', 'tasks.md']) db.prepare('INSERT INTO household_moves (path, target, planned_at) VALUES (?, ?, ?)').run(name, `people/ann/${name}`, now);
      mkdirSync(path.join(root, 'people/ann'), { recursive: true });
      renameSync(path.join(root, 'notes'), path.join(root, 'people/ann/notes'));
      expect(upgradeToHousehold({ root, db, owner: 'ann', people: ['ann'], log: quiet })).toBe(3);
      expect(filesOf(path.join(root, 'people/ann'))).toEqual(new Map([['notes/x.md', Buffer.from('x')], ['profile.md', Buffer.from('me')], ['tasks.md', Buffer.from('t')]]));
      expect(db.prepare('SELECT COUNT(*) AS left FROM household_moves WHERE moved_at IS NULL').get()).toEqual({ left: 0 });
    } finally {
      db.close();
    }
  });

  it('never moves a file over one already in the owner\'s folder', () => {
    const dir = tempDir();
    const root = path.join(dir, 'memory');
    mkdirSync(path.join(root, 'people/ann'), { recursive: true });
    writeFileSync(path.join(root, 'people/ann/profile.md'), 'written by hand before the start');
    writeFileSync(path.join(root, 'profile.md'), 'the single person\'s');
    const db = openDatabase(path.join(dir, 'data'));
    try {
      upgradeToHousehold({ root, db, owner: 'ann', people: ['ann'], log: quiet });
      expect(readFileSync(path.join(root, 'people/ann/profile.md'), 'utf8')).toBe('written by hand before the start');
      expect(readFileSync(path.join(root, 'people/ann/profile.before-household.md'), 'utf8')).toBe('the single person\'s');
      expect(existsSync(path.join(root, 'profile.md'))).toBe(false);
    } finally {
      db.close();
    }
  });
});
