// The skill store reads SKILL.md fresh on every call and keeps only the parse of a text it has seen: a hand edit is
// seen at once (whatever its size and time stamp), an unchanged text is not parsed again, and what one caller does
// to its skill is not seen by the next.
import { utimesSync, writeFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';
import { SkillStore } from '../../src/skills/store.js';
import { tempDir } from '../helpers/app.js';
import { skillMd, writeSkill } from './helpers.js';

let db: Database | undefined;
afterEach(() => db?.close());

function store(dir: string): SkillStore {
  db = openDatabase(path.join(dir, 'data'));
  return new SkillStore({ dir: path.join(dir, 'skills'), db, timeZone: 'Europe/Paris' });
}

describe('the skill store', () => {
  it('sees a hand edit at the next read, even one of the same size made within the same second', () => {
    const dir = tempDir();
    writeSkill(dir, 'echo', skillMd({ name: 'Echo aaaaa' }));
    const skills = store(dir);
    const file = path.join(dir, 'skills', 'echo', 'SKILL.md');
    const before = statSync(file);
    expect(skills.get('echo')).toMatchObject({ success: true, value: { name: 'Echo aaaaa' } });
    writeFileSync(file, skillMd({ name: 'Echo bbbbb' }));
    utimesSync(file, before.atime, before.mtime);
    expect(skills.get('echo')).toMatchObject({ success: true, value: { name: 'Echo bbbbb' } });
    writeFileSync(file, skillMd({ name: 'Echo bbbbb', trigger: '{type: cron, cron: "61 7 * * *"}' }));
    expect(skills.get('echo')).toMatchObject({ success: false });
    expect(skills.list().map((entry) => entry.success)).toEqual([false]);
  });

  it('gives each caller its own copy of an unchanged skill', () => {
    const dir = tempDir();
    writeSkill(dir, 'echo', skillMd({ tools: '[echo, http_request]' }));
    const skills = store(dir);
    const first = skills.get('echo');
    if (!first?.success) throw new Error('the skill did not parse');
    first.value.tools.push('sandbox_exec');
    first.value.trigger.type = 'cron';
    const second = skills.get('echo');
    expect(second).toMatchObject({ success: true, value: { tools: ['echo', 'http_request'], trigger: { type: 'manual' } } });
    expect(second?.success && second.value).not.toBe(first.value);
  });
});
