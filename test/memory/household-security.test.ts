// In a household each person sees their own folder and shared/, nothing else: not by path tricks either.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';
import { withPerson, type ActingPerson } from '../../src/lib/person-scope.js';
import { MemoryStore } from '../../src/memory/store.js';
import { createMemoryTools } from '../../src/memory/tools.js';
import { tempDir } from '../helpers/app.js';

const ANN: ActingPerson = { name: 'ann', role: 'owner', folder: 'people/ann' };
const BEN: ActingPerson = { name: 'ben', role: 'member', folder: 'people/ben' };
const GUEST: ActingPerson = { name: 'guest', role: 'guest', folder: undefined };

describe('a person\'s view of the memory folder', () => {
  let root: string;
  let db: Database;
  let store: MemoryStore;

  beforeAll(() => {
    const dir = tempDir();
    root = path.join(dir, 'memory');
    for (const folder of ['people/ann/notes', 'people/ben', 'shared']) mkdirSync(path.join(root, folder), { recursive: true });
    writeFileSync(path.join(root, 'people/ann/profile.md'), 'Ann: allergic to penicillin; PIN 4711\n');
    writeFileSync(path.join(root, 'people/ann/notes/secret.md'), 'Ann\'s surprise party plans\n');
    writeFileSync(path.join(root, 'people/ben/profile.md'), 'Ben likes chess\n');
    writeFileSync(path.join(root, 'shared/family.md'), 'The family eats at 7\n');
    symlinkSync(path.join(root, 'people/ann'), path.join(root, 'people/ben/ann-link'));
    symlinkSync('../ann/profile.md', path.join(root, 'people/ben/sneaky.md'));
    db = openDatabase(path.join(dir, 'data'));
    store = new MemoryStore(root, db);
    store.useHousehold(db, 'ann');
  });

  afterAll(() => db.close());

  const asBen = <T>(run: () => T): T => withPerson(BEN, run);

  it('lists only the person\'s own files and shared/, under the paths they use', () => {
    expect(asBen(() => store.list().map((file) => file.path))).toEqual(['profile.md', 'shared/family.md']);
    expect(withPerson(ANN, () => store.list().map((file) => file.path))).toEqual(['notes/secret.md', 'profile.md', 'shared/family.md']);
  });

  it('refuses "..", absolute paths and links that lead into another person\'s folder', () => {
    for (const trick of ['../ann/profile.md', '../../people/ann/profile.md', path.join(root, 'people/ann/profile.md'), '/etc/passwd', 'ann-link/profile.md', 'sneaky.md', './../ann/notes/secret.md', 'shared/../people/ann/profile.md']) {
      expect(() => asBen(() => store.read(trick)), trick).toThrow();
    }
  });

  it('takes another person\'s folder name as a path inside the person\'s own folder, never as theirs', () => {
    expect(() => asBen(() => store.read('people/ann/profile.md'))).toThrow(/ENOENT/);
  });

  it('never writes through a trick into another person\'s folder', async () => {
    for (const trick of ['../ann/profile.md', 'ann-link/profile.md', 'sneaky.md', path.join(root, 'people/ann/profile.md')]) {
      await expect(asBen(() => store.write(trick, 'Ben was here'))).rejects.toThrow();
    }
    expect(readFileSync(path.join(root, 'people/ann/profile.md'), 'utf8')).toBe('Ann: allergic to penicillin; PIN 4711\n');
  });

  it('lets a member read shared/ but not write it; the owner writes it', async () => {
    expect(asBen(() => store.read('shared/family.md'))).toBe('The family eats at 7\n');
    await expect(asBen(() => store.write('shared/family.md', 'Ben decides dinner'))).rejects.toThrow(/written by the owner; to share one of your files, use memory_share/);
    await expect(asBen(() => store.remove('shared/family.md'))).rejects.toThrow(/written by the owner/);
    const written = await withPerson(ANN, () => store.write('shared/family.md', 'The family eats at 7, Sundays at 1\n'));
    expect(written.path).toBe('shared/family.md');
  });

  it('writes a person\'s profile.md into their own folder, shown as profile.md', async () => {
    const written = await asBen(() => store.write('notes/games.md', 'chess openings\n'));
    expect(written.path).toBe('notes/games.md');
    expect(readFileSync(path.join(root, 'people/ben/notes/games.md'), 'utf8')).toBe('chess openings\n');
  });

  it('finds in search only the person\'s files and shared/', () => {
    expect(asBen(() => store.search('penicillin'))).toEqual([]);
    expect(asBen(() => store.search('surprise'))).toEqual([]);
    expect(asBen(() => store.search('chess').map((hit) => hit.path))).toContain('profile.md');
    expect(withPerson(ANN, () => store.search('penicillin').map((hit) => hit.path))).toEqual(['profile.md']);
  });

  it('builds the prompt from the person\'s files and shared/ only', () => {
    const ben = asBen(() => store.forPrompt(10_000, true)).snapshot.text;
    expect(ben).toContain('Ben likes chess');
    expect(ben).toContain('The family eats at 7');
    expect(ben).not.toContain('penicillin');
    expect(ben).not.toContain('surprise');
    const ann = withPerson(ANN, () => store.forPrompt(10_000, true)).snapshot.text;
    expect(ann).toContain('penicillin');
    expect(ann).not.toContain('Ben likes chess');
  });

  it('gives a guest no folder at all, not even shared/, and the memory tools say so', async () => {
    expect(withPerson(GUEST, () => store.list().map((file) => file.path))).toEqual([]);
    expect(() => withPerson(GUEST, () => store.read('shared/family.md'))).toThrow(/a guest/);
    expect(withPerson(GUEST, () => store.forPrompt(10_000, true)).snapshot.text).toBe('');
    const write = createMemoryTools().find((tool) => tool.name === 'memory_write');
    const result = await withPerson(GUEST, () => write?.execute({ path: 'profile.md', content: 'I am the owner', mode: 'overwrite' }, { memory: store, conversationId: 'c' } as never));
    expect(result).toMatchObject({ success: false, output: expect.stringMatching(/no memory folder here \(a guest\)/) as unknown });
    expect(existsSync(path.join(root, 'profile.md'))).toBe(false);
  });
});
