import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { notesHarness, type NotesHarness } from './helpers.js';

describe('notes in memory/notes/', () => {
  let h: NotesHarness;
  beforeEach(async () => {
    h = await notesHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  it('creates a note with YAML front matter, named after its title', async () => {
    const result = await h.call('note_create', { title: 'Trip: Lisbon / May', body: 'Book the [[Hotel]] soon.', tags: ['travel', '#2027'] });
    expect(result.success).toBe(true);
    expect(result.output).toContain('notes/Trip Lisbon May.md');
    const text = h.read('notes/Trip Lisbon May.md');
    expect(text).toMatch(/^---\ntitle: "Trip: Lisbon \/ May"\ntags:\n  - travel\n  - "2027"\ncreated: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0[12]:00\nupdated: .*\n---\n\nBook the \[\[Hotel\]\] soon.\n$/);
  });

  it('never overwrites a note with the same title: the second gets a number', async () => {
    await h.call('note_create', { title: 'Ideas' });
    const second = await h.call('note_create', { title: 'Ideas', body: 'more' });
    expect(second.output).toContain('notes/Ideas 2.md');
  });

  it('appends, retitles and retags, keeping keys and text written by hand', async () => {
    h.write('notes/Garden.md', '---\ntitle: Garden\n# my comment\nmood: green\ntags: [plants]\n---\nTomatoes.\n');
    const result = await h.call('note_update', { note: 'garden', append: 'Basil too.', add_tags: ['summer'], title: 'Garden plan' });
    expect(result.success).toBe(true);
    const text = h.read('notes/Garden.md');
    expect(text).toContain('# my comment\nmood: green\n');
    expect(text).toContain('title: Garden plan');
    expect(text).toMatch(/tags: \[ ?plants, summer ?\]|tags:\n  - plants\n  - summer/);
    expect(text).toMatch(/---\nTomatoes.\n\nBasil too.\n$/);
  });

  it('an append lands on the version saved by hand in between, which is kept', async () => {
    await h.call('note_create', { title: 'Journal', body: 'Monday.' });
    const memory = h.app.memory;
    const original = memory.write.bind(memory);
    let raced = false;
    memory.write = async (file, content, options) => {
      if (!raced && file === 'notes/Journal.md') {
        raced = true;
        h.write('notes/Journal.md', h.read('notes/Journal.md').replace('Monday.', 'Monday. Typed in my editor.'));
      }
      return original(file, content, options);
    };
    expect((await h.call('note_update', { note: 'Journal', append: 'Tuesday.' })).success).toBe(true);
    expect(h.read('notes/Journal.md')).toMatch(/\nMonday\. Typed in my editor\.\n\nTuesday\.\n$/);
  });

  it('searches title, tags and body, best first, with snippets and filters', async () => {
    await h.call('note_create', { title: 'Sourdough', body: 'Feed the starter with flour and water.', tags: ['baking'] });
    await h.call('note_create', { title: 'Shopping', body: 'flour, eggs' });
    await h.call('goal_create', { title: 'Bake every weekend', why: 'flour power' });
    const result = await h.call('note_search', { query: 'sourdough flour' });
    expect(result.output.split('\n')[0]).toContain('"Sourdough"');
    expect(result.output).toContain('«flour»');
    const any = await h.call('note_search', { query: 'flour' });
    expect(any.output).toContain('Shopping');
    expect((await h.call('note_search', { query: 'flour', tag: 'baking' })).output).not.toContain('Shopping');
    const goals = await h.call('note_search', { type: 'goal' });
    expect(goals.output).toContain('Bake every weekend');
    expect(goals.output).not.toContain('Sourdough');
    expect((await h.call('note_search', { after: '2999-01-01' })).output).toContain('No notes match');
    // A note edited by hand is found by its new words.
    h.write('notes/Shopping.md', h.read('notes/Shopping.md').replace('eggs', 'artichokes'));
    expect((await h.call('note_search', { query: 'artichokes' })).output).toContain('Shopping');
  });

  it('links two notes both ways, once', async () => {
    await h.call('note_create', { title: 'Alpha', body: 'First.' });
    await h.call('note_create', { title: 'Beta' });
    expect((await h.call('note_link', { from: 'Alpha', to: 'Beta' })).output).toContain('Linked [[Alpha]] ↔ [[Beta]]');
    expect(h.read('notes/Alpha.md')).toMatch(/First.\n\n## Links\n\n- \[\[Beta\]\]\n$/);
    expect(h.read('notes/Beta.md')).toContain('- [[Alpha]]');
    expect((await h.call('note_link', { from: 'Beta', to: 'Alpha' })).output).toContain('already linked');
  });

  it('deletes a note, reports links left pointing at it, and /undo brings it back', async () => {
    await h.call('note_create', { title: 'Gone soon', body: 'bye' });
    await h.call('note_create', { title: 'Pointer', body: 'see [[Gone soon]]' });
    const result = await h.call('note_delete', { note: 'Gone soon' });
    expect(result.output).toContain('notes/Pointer.md');
    expect(existsSync(h.file('notes/Gone soon.md'))).toBe(false);
    expect(await h.command('undo')).toContain('back to how it was');
    expect(h.read('notes/Gone soon.md')).toContain('bye');
  });

  it('goals track status and dated progress; reflections and plans are notes of their type', async () => {
    await h.call('goal_create', { title: 'Run a 10k', target_date: '2030-06-01', why: 'health' });
    expect(h.read('notes/Run a 10k.md')).toMatch(/type: goal\nstatus: active\ntarget: 2030-06-01\nwhy: health/);
    await h.call('goal_update', { goal: 'Run a 10k', progress: 'ran 5k' });
    await h.call('goal_update', { goal: 'Run a 10k', status: 'achieved' });
    const goal = h.read('notes/Run a 10k.md');
    expect(goal).toContain('status: achieved');
    expect(goal).toContain(`## Progress\n\n- ${h.today}: ran 5k\n- ${h.today}: status → achieved\n`);
    await h.call('reflection_create', { body: 'Good week.' });
    expect(h.read(`notes/Reflection ${h.today}.md`)).toContain('type: reflection');
    const plan = await h.call('plan_create', { body: 'Focus on running.', goals: ['Run a 10k'], tasks: [{ description: 'Buy shoes', due: '2030-01-03' }] });
    expect(plan.success).toBe(true);
    const planText = h.read(`notes/Plan week of ${h.today}.md`);
    expect(planText).toContain('type: plan');
    expect(planText).toContain('- [[Run a 10k]]');
    expect(planText).toMatch(/## Tasks\n\n- \[ \] Buy shoes 📅 2030-01-03 🆔 [a-z0-9]{6}\n/);
    // The plan's tasks are tasks like any other.
    expect((await h.call('task_search', {})).output).toContain('Buy shoes');
  });

  it('has the camelCase aliases of the design', () => {
    for (const alias of ['noteCreate', 'noteUpdate', 'noteDelete', 'noteSearch', 'noteLink', 'taskCreate', 'taskUpdate', 'taskComplete', 'taskSearch', 'goalCreate', 'goalUpdate', 'reflectionCreate', 'webScrape']) {
      expect(h.app.tools.get(alias), alias).toBeDefined();
    }
  });

  it('/save keeps my last answer or a text as a note', async () => {
    h.fake.script({ content: 'Three tips for sleep:\n1. dark room\n2. no screens' });
    await h.app.turns.start({ text: 'tips for sleep?', origin: { channel: 'telegram', chatId: '77', userId: '77' }, source: 'chat' });
    expect(await h.command('save')).toBe('Saved my last answer as notes/Three tips for sleep.md.');
    expect(h.read('notes/Three tips for sleep.md')).toContain('2. no screens');
    expect(await h.command('save', 'Door code is 4711')).toContain('notes/Door code is 4711.md');
  });
});
