import { afterEach, describe, expect, it } from 'vitest';
import { wallClockAt } from '../../src/lib/zoned.js';
import { notesHarness, type NotesHarness } from './helpers.js';

// Saturday 24 October 2037, 12:00 in Paris (CEST, UTC+2): the clocks go back to UTC+1 at 03:00 the next night.
const NOW = Date.parse('2037-10-24T10:00:00Z');
const HOUR = 3_600_000;

/** "10-25 15:00": an instant on Paris's wall clock. */
const wall = (at: number | undefined): string => {
  const clock = wallClockAt(at ?? 0, 'Europe/Paris');
  return `${clock.month}-${clock.day} ${String(clock.hour).padStart(2, '0')}:${String(clock.minute).padStart(2, '0')}`;
};

let h: NotesHarness;
afterEach(async () => {
  await h.close();
});

const reminders = () => h.app.scheduler.list({ includeDone: true }).filter((job) => job.kind === 'reminder');

describe('reminder_create reads when the way people say it, in their time zone', () => {
  const create = async (when: string, title = 'Call the dentist') => {
    const result = await h.call('reminder_create', { title, when });
    expect(result.success, result.output).toBe(true);
    const job = reminders().find((candidate) => result.output.includes(candidate.id));
    if (!job) throw new Error(`no job for ${when}`);
    return job;
  };

  it('places a time of day across the night the clocks go back on the wall clock, and a duration exactly', async () => {
    h = await notesHarness({}, { now: () => new Date(NOW) });
    expect(wall((await create('tomorrow at 3pm')).runAt)).toBe('10-25 15:00');
    expect((await create('tomorrow at 3pm')).runAt).toBe(Date.parse('2037-10-25T14:00:00Z'));
    // 24 hours later is 11:00 on the clock, which went back an hour in between.
    const exact = await create('in 24 hours');
    expect(exact.runAt).toBe(NOW + 24 * HOUR);
    expect(wall(exact.runAt)).toBe('10-25 11:00');
    expect((await create('in 20 minutes')).runAt).toBe(NOW + 20 * 60_000);
    expect(wall((await create('next friday 9:00')).runAt)).toBe('10-30 09:00');
    expect(wall((await create('2037-12-24T18:00')).runAt)).toBe('12-24 18:00');
  });

  it('keeps a repeat as a recurring reminder', async () => {
    h = await notesHarness({}, { now: () => new Date(NOW) });
    const job = await create('every weekday at 8', 'Stand-up');
    expect(job).toMatchObject({ kind: 'reminder', cron: '0 8 * * 1-5', prompt: 'Stand-up', spec: 'every weekday at 8' });
  });

  it('refuses a time it cannot read, or one already past, with what works, and makes nothing', async () => {
    h = await notesHarness({}, { now: () => new Date(NOW) });
    const unreadable = await h.call('reminder_create', { title: 'x', when: 'when the cows come home' });
    expect(unreadable.success).toBe(false);
    expect(unreadable.output).toMatch(/in 20 minutes/);
    const past = await h.call('reminder_create', { title: 'x', when: '2037-10-01T09:00' });
    expect(past).toMatchObject({ success: false, output: expect.stringContaining('already past') });
    expect(reminders()).toEqual([]);
  });

  it('is a plain reminder for the chat that asked, with its title and description as the text', async () => {
    h = await notesHarness();
    const result = await h.call('reminderCreate', { title: 'Bring the cake', description: 'Chocolate, for Anna', when: 'in 2 hours' });
    expect(result.output).toMatch(/^Reminder r-[0-9a-f]{6} set for \d{4}-\d{2}-\d{2} \d\d:\d\d \(Europe\/Paris\): "Bring the cake"\. It goes to this chat/);
    expect(reminders()).toEqual([expect.objectContaining({ prompt: 'Bring the cake\nChocolate, for Anna', origin: expect.objectContaining({ channel: 'telegram', chatId: '77' }), sources: [] })]);
  });

  it('sends its text with no model call when it fires', async () => {
    h = await notesHarness();
    await h.call('reminder_create', { title: 'Take the bread out', when: 'in 1 hour' });
    const [job] = reminders();
    const run = await h.app.scheduler.runNow(job?.id ?? '');
    // No channel runs in this app: the text is what would have gone to telegram:77.
    expect(run).toMatchObject({ success: true, value: { output: '⏰ Take the bread out', error: expect.stringContaining('not delivered to telegram:77') } });
    expect(h.fake.requests).toHaveLength(0);
  });
});

describe('reminder_create links a task by id or by words', () => {
  const TASKS = '# Tasks\n\n- [ ] Pay the rent 🆔 rent01\n- [ ] Buy milk 🆔 milk01\n- [ ] Buy bread 🆔 brd001\n';

  it('links the one open task the words match', async () => {
    h = await notesHarness();
    h.write('tasks.md', TASKS);
    const result = await h.call('reminder_create', { title: 'Rent day', when: 'tomorrow at 9', task: 'the rent' });
    expect(result.output).toContain('about task rent01 (Done ticks it)');
    const [job] = reminders();
    expect(h.app.db.prepare('SELECT task FROM reminder_links WHERE job_id = ?').get(job?.id)).toEqual({ task: 'rent01' });
  });

  it('lists the candidates when several match, and says how to find one when none does', async () => {
    h = await notesHarness();
    h.write('tasks.md', TASKS);
    const several = await h.call('reminder_create', { title: 'Shop', when: 'tomorrow at 9', task: 'buy' });
    expect(several.success).toBe(false);
    expect(several.output).toContain('matches 2 open tasks');
    expect(several.output).toContain('- milk01: Buy milk\n- brd001: Buy bread');
    const none = await h.call('reminder_create', { title: 'Shop', when: 'tomorrow at 9', task: 'walk the dog' });
    expect(none.output).toMatch(/^No task "walk the dog".*task_search/);
    expect(reminders()).toEqual([]);
  });
});

describe('task tools take people\'s words', () => {
  it('task_update takes a reminder in words, read in the person\'s time zone', async () => {
    h = await notesHarness({}, { now: () => new Date(NOW) });
    h.write('tasks.md', '- [ ] Call the bank 🆔 bank01\n');
    const updated = await h.call('task_update', { task: 'bank01', reminder: 'tomorrow at 3pm' });
    expect(updated.success, updated.output).toBe(true);
    expect(h.read('tasks.md')).toBe('- [ ] Call the bank 🆔 bank01 ⏰ 2037-10-25 15:00\n');
    const repeat = await h.call('task_update', { task: 'bank01', reminder: 'every day at 9' });
    expect(repeat.output).toContain('a repeating task takes recurrence');
  });

  it('task_complete ticks the one open task the words match', async () => {
    h = await notesHarness();
    h.write('tasks.md', '- [ ] Buy milk 🆔 milk01\n- [ ] Call the plumber 🆔 plmb01\n');
    const done = await h.call('task_complete', { task: 'plumber' });
    expect(done.success, done.output).toBe(true);
    expect(h.read('tasks.md')).toMatch(/^- \[x\] Call the plumber 🆔 plmb01 ✅ \d{4}-\d{2}-\d{2}$/m);
  });

  it('task_complete answers with the candidates when several open tasks match, and ticks none', async () => {
    h = await notesHarness();
    const file = '- [ ] Buy milk 🆔 milk01\n- [ ] Buy bread 🆔 brd001\n- [x] Buy eggs 🆔 egg001 ✅ 2026-01-01\n';
    h.write('tasks.md', file);
    const several = await h.call('task_complete', { task: 'buy' });
    expect(several).toMatchObject({ success: false, output: expect.stringContaining('"buy" matches 2 open tasks; ask the person which one') });
    expect(several.output).toContain('- milk01: Buy milk\n- brd001: Buy bread');
    expect(h.read('tasks.md')).toBe(file);
  });

  it('task_complete says how to find the task when no open one matches', async () => {
    h = await notesHarness();
    h.write('tasks.md', '- [ ] Buy milk 🆔 milk01\n');
    const none = await h.call('task_complete', { task: 'water the garden' });
    expect(none).toMatchObject({ success: false, output: expect.stringMatching(/^No task "water the garden".*Call task_search/) });
  });
});
