import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addDays, instantOf } from '../../src/notes/dates.js';
import { notesHarness, type NotesHarness } from './helpers.js';

describe('task reminders follow the files', () => {
  let h: NotesHarness;
  beforeEach(async () => {
    h = await notesHarness({ scheduler: { default_chat: "telegram:500" } });
  });
  afterEach(async () => {
    await h.close();
  });

  const jobs = () => h.app.scheduler.list({ includeDone: true, idPrefix: 'task-' }) ?? [];

  it('a reminder is a one-shot job at the ⏰ time, for the chat that asked', async () => {
    const day = addDays(h.today, 3);
    await h.call('task_create', { description: 'Dentist', due: day, reminder: '08:30' });
    expect(jobs()).toEqual([expect.objectContaining({ kind: 'reminder', prompt: 'Dentist', runAt: instantOf(day, '08:30', 'Europe/Paris'), origin: expect.objectContaining({ channel: 'telegram', chatId: '77' }) })]);
  });

  it('moving the ⏰ by hand re-times the job; deleting the line removes it', async () => {
    const day = addDays(h.today, 3);
    await h.call('task_create', { description: 'Dentist', due: day, reminder: '08:30' });
    h.write('tasks.md', h.read('tasks.md').replace('08:30', '11:15'));
    await h.call('task_search', {});
    expect(jobs().map((job) => job.runAt)).toEqual([instantOf(day, '11:15', 'Europe/Paris')]);
    h.write('tasks.md', '# Tasks\n');
    await h.command('tasks');
    expect(jobs()).toEqual([]);
  });

  it('a ⏰ written by hand gets a job, delivered to scheduler.default_chat; an old ⏰ is not sent late', async () => {
    const day = addDays(h.today, 2);
    h.write('tasks.md', `- [ ] Call grandma ⏰ ${day} 18:00\n- [ ] Long past ⏰ 2020-01-01 10:00\n`);
    await h.call('task_search', {});
    const [job] = jobs();
    expect(jobs()).toHaveLength(1);
    expect(job).toMatchObject({ prompt: 'Call grandma', runAt: instantOf(day, '18:00', 'Europe/Paris') });
    expect(job?.id).toMatch(/^task-h[0-9a-f]{8}$/);
    const outcome = await h.app.scheduler.runNow(job?.id ?? '');
    // No Telegram runs in this app: the delivery to the default chat is tried, and reported as not delivered.
    expect(outcome).toMatchObject({ success: true, value: { status: 'failed', error: expect.stringContaining('not delivered to telegram:500') } });
  });

  it('completing a task through a tool removes its reminder; its next occurrence gets one', async () => {
    const day = addDays(h.today, 1);
    await h.call('task_create', { description: 'Water plants', due: day, recurrence: 'every week', reminder: '07:00' });
    const [before] = jobs();
    const ref = /🆔 ([a-z0-9]{6})/.exec(h.read('tasks.md'))?.[1] ?? '';
    await h.call('task_complete', { task: ref });
    const after = jobs();
    expect(after.map((job) => job.id)).not.toContain(before?.id);
    expect(after).toEqual([expect.objectContaining({ prompt: 'Water plants', runAt: instantOf(addDays(day, 7), '07:00', 'Europe/Paris') })]);
  });
});

describe('recurring tasks ticked by hand', () => {
  let h: NotesHarness;
  beforeEach(async () => {
    h = await notesHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  it('get their next occurrence when ticked after being seen open; old ticked lines are left alone', async () => {
    h.write('tasks.md', '- [x] Old habit 🔁 every day 📅 2020-01-01\n- [ ] Stretch 🔁 every day 📅 2030-01-01 🆔 str001\n');
    await h.call('task_search', {});
    expect(h.read('tasks.md')).toBe('- [x] Old habit 🔁 every day 📅 2020-01-01\n- [ ] Stretch 🔁 every day 📅 2030-01-01 🆔 str001\n');
    h.write('tasks.md', h.read('tasks.md').replace('- [ ] Stretch', '- [x] Stretch'));
    await h.call('task_search', {});
    const lines = h.read('tasks.md').split('\n');
    expect(lines[0]).toBe('- [x] Old habit 🔁 every day 📅 2020-01-01');
    expect(lines[1]).toMatch(/^- \[ \] Stretch 🔁 every day 📅 2030-01-02 🆔 [a-z0-9]{6}$/);
    expect(lines[2]).toBe('- [x] Stretch 🔁 every day 📅 2030-01-01 🆔 str001');
    // Seen again: not followed twice.
    await h.command('tasks');
    expect(h.read('tasks.md').split('\n').filter((line) => line.includes('Stretch'))).toHaveLength(2);
  });

  it('are not followed when Obsidian Tasks already wrote the next occurrence (✅ date present)', async () => {
    h.write('tasks.md', '- [ ] Read 🔁 every day 📅 2030-01-01 🆔 rd0001\n');
    await h.call('task_search', {});
    h.write('tasks.md', '- [ ] Read 🔁 every day 📅 2030-01-02 🆔 rd0002\n- [x] Read 🔁 every day 📅 2030-01-01 🆔 rd0001 ✅ 2030-01-01\n');
    await h.call('task_search', {});
    expect(h.read('tasks.md').split('\n').filter((line) => line.includes('Read'))).toHaveLength(2);
  });
});
