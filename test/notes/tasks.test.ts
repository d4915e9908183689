import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addDays } from '../../src/notes/dates.js';
import { parseTaskText } from '../../src/notes/task-text.js';
import { notesHarness, type NotesHarness } from './helpers.js';

describe('tasks in memory/tasks.md', () => {
  let h: NotesHarness;
  beforeEach(async () => {
    h = await notesHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  it('adds a task line in the Obsidian Tasks format, with an id, to a new tasks.md', async () => {
    const result = await h.call('task_create', { description: 'Buy milk', due: '2030-01-02', priority: 'high', tags: ['home'] });
    expect(result.success).toBe(true);
    expect(h.read('tasks.md')).toMatch(/^# Tasks\n\n- \[ \] Buy milk #home ⏫ 📅 2030-01-02 🆔 [a-z0-9]{6}\n$/);
  });

  it('completes a task without touching any other byte of the file (CRLF, indentation, unknown emoji)', async () => {
    const before = '# Home\r\n\r\n  - [ ] Water plants 🌱 📅 2030-01-01 🆔 w1\r\n- [ ] Feed cat 🐈 🏁 keep\r\n\tsome note\r\n';
    h.write('tasks.md', before);
    const result = await h.call('task_complete', { task: 'w1' });
    expect(result.success).toBe(true);
    expect(h.read('tasks.md')).toBe(`# Home\r\n\r\n  - [x] Water plants 🌱 📅 2030-01-01 🆔 w1 ✅ ${h.today}\r\n- [ ] Feed cat 🐈 🏁 keep\r\n\tsome note\r\n`);
  });

  it('makes the next occurrence of a recurring task above the completed one, dates and reminder moved', async () => {
    h.write('tasks.md', '- [ ] Pay rent 🔁 every month on the 1st 📅 2030-01-01 ⏰ 2030-01-01 09:00 🆔 rent01\n');
    const result = await h.call('task_complete', { task: 'rent01' });
    expect(result.success).toBe(true);
    const [next, done] = h.read('tasks.md').split('\n');
    expect(next).toMatch(/^- \[ \] Pay rent 🔁 every month on the 1st 📅 2030-02-01 ⏰ 2030-02-01 09:00 🆔 [a-z0-9]{6}$/);
    expect(next).not.toContain('rent01');
    expect(done).toBe(`- [x] Pay rent 🔁 every month on the 1st 📅 2030-01-01 ⏰ 2030-01-01 09:00 🆔 rent01 ✅ ${h.today}`);
  });

  it('a recurrence with a time of day still moves on by whole days', async () => {
    h.write('tasks.md', '- [ ] Gym 🔁 every day at 7am 📅 2030-01-01 🆔 gym001\n');
    await h.call('task_complete', { task: 'gym001' });
    expect(h.read('tasks.md').split('\n')[0]).toMatch(/^- \[ \] Gym 🔁 every day at 7am 📅 2030-01-02 🆔/);
  });

  it('finds tasks by status, due range, list and tag, reading hand edits at once', async () => {
    h.write('tasks.md', `- [ ] Soon 📅 ${addDays(h.today, 2)}\n- [x] Old ✅ 2020-01-01\n- [ ] Later #work 📅 ${addDays(h.today, 40)}\n- [ ] Undated\n`);
    h.write('tasks/shopping.md', '- [ ] Eggs\n');
    const week = await h.call('task_search', { due_before: addDays(h.today, 7) });
    expect(week.output).toContain('Soon');
    expect(week.output).not.toContain('Later');
    expect(week.output).not.toContain('Old');
    expect((await h.call('task_search', { status: 'done' })).output).toContain('Old');
    expect((await h.call('task_search', { tag: 'work' })).output).toContain('Later');
    const shopping = await h.call('task_search', { list: 'shopping' });
    expect(shopping.output).toContain('Eggs');
    expect(shopping.output).not.toContain('Soon');
    // Ticked by hand: no longer open.
    h.write('tasks.md', h.read('tasks.md').replace('- [ ] Soon', '- [x] Soon'));
    expect((await h.call('task_search', {})).output).not.toContain('Soon');
  });

  it('updates only the line it changes and gives an id-less task an id', async () => {
    h.write('tasks.md', '- [ ] Call Bob\n- [ ] Call Alice 📅 2030-05-05\n');
    const result = await h.call('task_update', { task: 'Call Alice', due: '2030-06-06', description: 'Call Alice back' });
    expect(result.success).toBe(true);
    const lines = h.read('tasks.md').split('\n');
    expect(lines[0]).toBe('- [ ] Call Bob');
    expect(lines[1]).toMatch(/^- \[ \] Call Alice back 📅 2030-06-06 🆔 [a-z0-9]{6}$/);
  });

  it('refuses bad input with a message the model can act on, and writes nothing', async () => {
    expect((await h.call('task_create', { description: 'x', recurrence: 'every blue moon' })).output).toContain('not a recurrence I understand');
    expect((await h.call('task_create', { description: 'x', reminder: 'tomorrowish' })).output).toContain('reminder must be');
    expect((await h.call('task_complete', { task: 'nope' })).output).toContain('No task "nope"');
    expect((await h.call('task_create', { description: 'x', due: '2030-02-31' })).output).toMatch(/must match|YYYY-MM-DD/);
  });

  it('redoes its change when the file was edited by hand between read and write, keeping the hand edit', async () => {
    h.write('tasks.md', '- [ ] A 🆔 a1\n- [ ] B 🆔 b1\n');
    const memory = h.app.memory;
    const original = memory.write.bind(memory);
    let raced = false;
    // The person saves the file in their editor just before the tool's write lands.
    memory.write = async (file, content, options) => {
      if (!raced && file === 'tasks.md') {
        raced = true;
        h.write('tasks.md', '- [ ] A 🆔 a1\n- [ ] B 🆔 b1\n- [ ] C typed by hand\n');
      }
      return original(file, content, options);
    };
    const result = await h.call('task_complete', { task: 'b1' });
    expect(result.success).toBe(true);
    expect(h.read('tasks.md')).toBe(`- [ ] A 🆔 a1\n- [x] B 🆔 b1 ✅ ${h.today}\n- [ ] C typed by hand\n`);
  });

  it('/tasks groups open tasks by due date and /tasks done ticks one', async () => {
    h.write('tasks.md', `- [ ] Late 📅 ${addDays(h.today, -1)} 🆔 l1\n- [ ] Now 📅 ${h.today}\n- [ ] Someday\n`);
    const list = await h.command('tasks');
    expect(list).toMatch(/Overdue:\n• Late 📅 .* — l1\n\nToday:\n• Now/);
    expect(list).toContain('No date:\n• Someday');
    expect(await h.command('tasks', 'done l1')).toBe('✅ Late');
    expect(h.read('tasks.md')).toContain(`- [x] Late 📅 ${addDays(h.today, -1)} 🆔 l1 ✅ ${h.today}`);
  });
});

describe('/task in plain words', () => {
  const now = Date.parse('2026-11-22T10:00:00+01:00'); // a Sunday in Paris

  it('reads a monthly recurrence and starts it at the next 1st', () => {
    expect(parseTaskText('pay rent every month on the 1st', now, 'Europe/Paris')).toMatchObject({ description: 'pay rent', recurrence: 'every month on the 1st', due: '2026-12-01' });
    expect(parseTaskText('remind me to pay rent on the 1st of every month', now, 'Europe/Paris')).toMatchObject({
      description: 'pay rent', recurrence: 'every month on the 1st', due: '2026-12-01', reminder: '2026-12-01 09:00', remind: true,
    });
  });

  it('takes a time as the reminder and a bare day as the due date', () => {
    expect(parseTaskText('call Bob tomorrow at 3pm', now, 'Europe/Paris')).toMatchObject({ description: 'call Bob', due: '2026-11-23', reminder: '2026-11-23 15:00' });
    const plain = parseTaskText('submit the report by Friday !high #work', now, 'Europe/Paris');
    expect(plain).toMatchObject({ description: 'submit the report #work', due: '2026-11-27', priority: 'high' });
    expect(plain.reminder).toBeUndefined();
  });

  it('reads the usual ways of saying it', () => {
    const zone = 'Europe/Paris';
    expect(parseTaskText('remind me every Monday to take out the trash', now, zone)).toMatchObject({ description: 'take out the trash', recurrence: 'every Monday', due: '2026-11-23', reminder: '2026-11-23 09:00' });
    expect(parseTaskText('take out the trash every Monday at 7pm', now, zone)).toMatchObject({ description: 'take out the trash', recurrence: 'every Monday', reminder: '2026-11-23 19:00' });
    expect(parseTaskText('gym every day at 7am', now, zone)).toMatchObject({ description: 'gym', recurrence: 'every day', due: '2026-11-23', reminder: '2026-11-23 07:00' });
    expect(parseTaskText('call mum every other week', now, zone)).toMatchObject({ description: 'call mum', recurrence: 'every 2 weeks' });
    expect(parseTaskText('review notes every 2 weeks on Friday', now, zone)).toMatchObject({ due: '2026-11-27' });
    expect(parseTaskText('renew insurance on the 15th of every month remind me', now, zone)).toMatchObject({ description: 'renew insurance', due: '2026-12-15', reminder: '2026-12-15 09:00' });
    expect(parseTaskText('remind me in 2 hours to call Bob', now, zone)).toMatchObject({ description: 'call Bob', reminder: '2026-11-22 12:00' });
    expect(parseTaskText('file taxes by April 15 every year', now, zone)).toMatchObject({ description: 'file taxes', recurrence: 'every year', due: '2027-04-15' });
  });

  it('keeps Obsidian Tasks fields typed by hand', () => {
    expect(parseTaskText('water plants 🔁 every week 📅 2026-11-25', now, 'Europe/Paris')).toMatchObject({ description: 'water plants', recurrence: 'every week', due: '2026-11-25' });
  });
});

describe('a recurring task made by a tool, with a reminder time', () => {
  let h: NotesHarness;
  afterEach(async () => {
    await h.close();
  });

  it('starts at the next occurrence when the first one\'s reminder time has already passed today, and today when not', async () => {
    h = await notesHarness({}, { now: () => new Date('2026-12-01T12:00:00+01:00') }); // the 1st, at noon in Paris
    await h.call('task_create', { description: 'Pay rent', recurrence: 'every month on the 1st', reminder: '09:00' });
    await h.call('task_create', { description: 'Check the meter', recurrence: 'every month on the 1st', reminder: '18:00' });
    const [rent, meter] = h.read('tasks.md').split('\n').filter((line) => line.startsWith('- [ ]'));
    expect(rent).toMatch(/^- \[ \] Pay rent 🔁 every month on the 1st 📅 2027-01-01 ⏰ 2027-01-01 09:00 🆔 /);
    expect(meter).toMatch(/^- \[ \] Check the meter 🔁 every month on the 1st 📅 2026-12-01 ⏰ 2026-12-01 18:00 🆔 /);
  });
});
