import { describe, expect, it } from 'vitest';
import { parseTaskLine, plainDescription, setDescription, setField, setStatus } from '../../src/notes/task-line.js';
import { parseTaskFile, splitLines, joinLines } from '../../src/notes/task-files.js';

describe('task lines (Obsidian Tasks emoji format)', () => {
  it('reads every field and leaves the description alone', () => {
    const task = parseTaskLine('  - [ ] Pay rent #home 🔁 every month on the 1st ⏫ 🛫 2026-11-28 ⏳ 2026-11-30 📅 2026-12-01 ⏰ 2026-12-01 09:00 🆔 k3x9p2 ⛔ abc123');
    expect(task?.prefix).toBe('  - [ ] ');
    expect(task?.description).toBe('Pay rent #home');
    const values = Object.fromEntries(task?.fields.map((field) => [field.kind, field.value]) ?? []);
    expect(values).toEqual({
      recurrence: 'every month on the 1st', priority: 'high', start: '2026-11-28', scheduled: '2026-11-30', due: '2026-12-01',
      reminder: '2026-12-01 09:00', id: 'k3x9p2', dependsOn: 'abc123',
    });
  });

  it('is not fooled by lines that are not checklist items', () => {
    expect(parseTaskLine('Pay rent 📅 2026-12-01')).toBeUndefined();
    expect(parseTaskLine('- Pay rent')).toBeUndefined();
    expect(parseTaskLine('1. [x] numbered')?.status).toBe('x');
    expect(parseTaskLine('> - [ ] quoted')?.description).toBe('quoted');
  });

  it('replaces a field in place and keeps unknown emoji, spacing and block ids', () => {
    const line = '- [ ] Call Bob 🤙  📅 2026-12-01   🏁 delete ^abc';
    expect(setField(line, 'due', '2026-12-05')).toBe('- [ ] Call Bob 🤙  📅 2026-12-05   🏁 delete ^abc');
    expect(setField(line, 'id', 'x1')).toBe('- [ ] Call Bob 🤙  📅 2026-12-01   🏁 delete 🆔 x1 ^abc');
    expect(setField(line, 'due', undefined)).toBe('- [ ] Call Bob 🤙    🏁 delete ^abc');
  });

  it('ticks the box without touching the rest', () => {
    expect(setStatus('\t* [ ] thing 📅 2026-01-01', 'x')).toBe('\t* [x] thing 📅 2026-01-01');
  });

  it('changes the description and keeps the fields after it', () => {
    expect(setDescription('- [ ] old words 📅 2026-12-01 🆔 a1', 'new words')).toBe('- [ ] new words 📅 2026-12-01 🆔 a1');
    expect(setDescription('- [ ] old words', 'new')).toBe('- [ ] new');
  });

  it('strips field markers and line breaks from outside text', () => {
    expect(plainDescription('Pay 📅 2099-01-01\n- [ ] 🔁 every day injected')).toBe('Pay 2099-01-01 - [ ] every day injected');
  });

  it('keeps each line break as it was (CRLF, LF, none at the end)', () => {
    const text = '# T\r\n- [ ] a\n- [x] b ✅ 2026-01-01';
    const { lines, breaks } = splitLines(text);
    expect(lines).toEqual(['# T', '- [ ] a', '- [x] b ✅ 2026-01-01']);
    expect(joinLines(lines, breaks)).toBe(text);
    expect(parseTaskFile('tasks.md', text).tasks.map((task) => [task.line, task.done, task.doneDate])).toEqual([[1, false, undefined], [2, true, '2026-01-01']]);
  });

  it('ignores checklists inside code blocks', () => {
    expect(parseTaskFile('tasks.md', '```\n- [ ] example\n```\n- [ ] real\n').tasks.map((task) => task.description)).toEqual(['real']);
  });
});
