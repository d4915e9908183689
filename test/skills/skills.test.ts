// Skills with the fake LLM: create_skill drafts and validates, list_skills reports, run_skill is a turn
// restricted to the skill's tools, manage_skill changes the file and the scheduler, malformed skills are reported.
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Daemon as App } from '../../src/daemon.js';
import { parseSkill } from '../../src/skills/format.js';
import type { AnyTool } from '../../src/tools/types.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { skillMd, writeSkill } from './helpers.js';

const origin = { channel: 'cli', chatId: 'test', userId: 'owner' };

function recordingTools(calls: string[]): AnyTool[] {
  const make = (name: string): AnyTool => ({
    name,
    description: `The ${name} tool.`,
    parameters: { type: 'object', properties: { text: { type: 'string' } }, additionalProperties: false },
    async execute(params: { text?: string }) {
      calls.push(name);
      return { success: true, output: `${name}: ${params.text ?? ''}` };
    },
  });
  return [make('echo'), make('secret_tool')];
}

describe('skills with the fake LLM', () => {
  let fake: FakeOpenAI;
  let t: TestApp;
  let app: App;
  let calls: string[];

  beforeEach(async () => {
    fake = await startOpenAiServer();
    t = await makeTestApp(fake, { approval: { auto_approve: ['manage_skill', 'install_skill'] } });
    app = t.app;
    calls = [];
    for (const tool of recordingTools(calls)) app.tools.register(tool);
  });

  afterEach(async () => {
    await app.close(0);
    await fake.close();
  });

  const call = async (name: string, args: Record<string, unknown>) =>
    (await app.tools.execute({ name, arguments: args, conversationId: 'conv', turnId: 'turn', origin })).result;

  it('registers the five skill tools with the parameters the issue names', () => {
    const schemas = new Map(app.tools.toFunctionSchemas().map((schema) => [schema.function.name, schema.function.parameters as { properties: Record<string, unknown>; required?: string[] }]));
    expect(Object.keys(schemas.get('create_skill')?.properties ?? {}).sort()).toEqual(['description', 'tools', 'trigger']);
    expect(schemas.get('list_skills')?.properties).toEqual({});
    expect(Object.keys(schemas.get('run_skill')?.properties ?? {}).sort()).toEqual(['id', 'input']);
    expect(Object.keys(schemas.get('manage_skill')?.properties ?? {}).sort()).toEqual(['action', 'id']);
    expect(Object.keys(schemas.get('install_skill')?.properties ?? {}).sort()).toEqual(['id', 'source']);
  });

  it('create_skill drafts a valid SKILL.md from the description and saves it as a draft', async () => {
    fake.script({
      content: JSON.stringify({
        id: 'greeter',
        skill_md: skillMd({ name: 'Greeter', status: 'draft', body: 'Greet the person by calling echo with "good morning".' }),
        files: [],
      }),
    });
    const result = await call('create_skill', { description: 'a skill that greets me' });
    expect(result.success).toBe(true);
    expect(result.output).toContain('Created skill "greeter" (draft)');
    const text = readFileSync(path.join(t.dir, 'skills', 'greeter', 'SKILL.md'), 'utf8');
    const parsed = parseSkill('greeter', text, 'Europe/Paris');
    expect(parsed).toMatchObject({ success: true, value: { name: 'Greeter', status: 'draft', tools: ['echo'], trigger: { type: 'manual' } } });
    // The drafting request told the model the format and the tools that exist, and carried the description.
    const request = fake.requests[0]?.body;
    expect(String(request?.messages[0]?.content)).toContain('Available tools:');
    expect(String(request?.messages[0]?.content)).toContain('echo');
    expect(String(request?.messages[1]?.content)).toContain('a skill that greets me');
    expect(request?.tools).toBeUndefined();
  });

  it('create_skill applies the trigger and tools it was given over the draft, and leaves it a draft whatever the draft says', async () => {
    fake.script({ content: '```json\n' + JSON.stringify({ id: 'daily-echo', skill_md: skillMd({ status: 'active', tools: '[secret_tool]', extra: 'approve: [send_message]' }) }) + '\n```' });
    const result = await call('create_skill', { description: 'echo every day at 7, activate it', trigger: { type: 'cron', cron: '0 7 * * *' }, tools: ['echo'] });
    expect(result.success).toBe(true);
    expect(result.output).toContain('Created skill "daily-echo" (draft)');
    expect(result.output).toContain('Only the person can turn it on');
    // Power is granted by the person only: the model's status and approve list are not taken.
    const entry = app.skills.store.get('daily-echo');
    expect(entry).toMatchObject({ success: true, value: { status: 'draft', approve: [], tools: ['echo'], trigger: { type: 'cron', cron: '0 7 * * *' } } });
    expect(app.scheduler.get('skill-daily-echo')).toBeUndefined();
  });

  it('create_skill never activates a skill made by an unattended run', async () => {
    fake.script({ content: JSON.stringify({ id: 'sneaky', skill_md: skillMd({ status: 'active', trigger: '{type: cron, cron: "0 7 * * *"}' }) }) });
    const outcome = await app.tools.execute({ name: 'create_skill', arguments: { description: 'activate it' }, conversationId: 'job-x', turnId: 'turn', origin, unattended: true });
    expect(outcome.result.output).toContain('Created skill "sneaky" (draft)');
    expect(outcome.result.output).toContain('Only the person can turn it on');
    expect(app.scheduler.get('skill-sneaky')).toBeUndefined();
  });

  it('create_skill sends an invalid draft back once to be fixed, then saves the fixed one', async () => {
    fake.script(
      { content: JSON.stringify({ id: 'broken', skill_md: '---\nname: x\n---\n' }) },
      { content: JSON.stringify({ id: 'fixed', skill_md: skillMd({ status: 'draft' }) }) },
    );
    const result = await call('create_skill', { description: 'echo something' });
    expect(result.success).toBe(true);
    expect(result.output).toContain('Created skill "fixed"');
    const retry = fake.requests[1]?.body.messages.at(-1);
    expect(String(retry?.content)).toMatch(/That draft is not valid: SKILL.md: description: Required/);
  });

  it('create_skill saves nothing when the draft stays invalid', async () => {
    fake.script({ content: 'not json' }, { content: JSON.stringify({ id: 'Bad Id', skill_md: skillMd() }) });
    const result = await call('create_skill', { description: 'echo something' });
    expect(result.success).toBe(false);
    expect(result.output).toMatch(/not valid \(id must be lowercase/);
    expect(app.skills.store.list()).toEqual([]);
  });

  it('create_skill keeps a skill with a test a draft when the sandbox cannot run the test, even if asked to activate', async () => {
    fake.script({ content: JSON.stringify({ id: 'tested', skill_md: skillMd({ status: 'active', extra: 'test: python3 scripts/check.py' }), files: [{ path: 'scripts/check.py', content: 'print(1)\n' }] }) });
    const result = await call('create_skill', { description: 'a tested skill, activate it' });
    expect(result.success).toBe(true);
    expect(result.output).toContain('Created skill "tested" (draft)');
    expect(result.output).toContain('Its test was not run: its scripts run only in the sandbox');
    expect(app.skills.store.get('tested')).toMatchObject({ success: true, value: { status: 'draft' } });
    expect(readFileSync(path.join(t.dir, 'skills', 'tested', 'scripts', 'check.py'), 'utf8')).toBe('print(1)\n');
  });

  it('create_skill refuses scripts outside scripts/', async () => {
    fake.script(
      { content: JSON.stringify({ id: 'escape', skill_md: skillMd(), files: [{ path: '../../evil.sh', content: 'x' }] }) },
      { content: JSON.stringify({ id: 'escape', skill_md: skillMd(), files: [{ path: 'scripts/../../evil.sh', content: 'x' }] }) },
    );
    const result = await call('create_skill', { description: 'anything' });
    expect(result.success).toBe(false);
    expect(result.output).toContain('must be inside scripts/');
  });

  it('list_skills shows id, name, status, trigger with next run, and last run with its outcome', async () => {
    writeSkill(t.dir, 'echoer', skillMd());
    writeSkill(t.dir, 'morning', skillMd({ name: 'Morning', trigger: '{type: cron, cron: "0 7 * * *"}' }));
    app.skills.scheduling.syncAll();
    fake.script({ content: 'done' });
    await call('run_skill', { id: 'echoer' });
    const result = await call('list_skills', {});
    expect(result.success).toBe(true);
    expect(result.output).toMatch(/^echoer — Echo things \[active\]; trigger: manual; last run: \d{4}-\d\d-\d\d \d\d:\d\d ok$/m);
    expect(result.output).toMatch(/^morning — Morning \[active\]; trigger: cron 0 7 \* \* \* \(Europe\/Paris\); next run: \d{4}-\d\d-\d\d 07:00; last run: never$/m);
  });

  it('run_skill runs a turn restricted to the skill\'s tools: a call outside its list is refused', async () => {
    writeSkill(t.dir, 'echoer', skillMd({ tools: '[echo]' }));
    fake.script(
      { toolCalls: [{ name: 'secret_tool', arguments: { text: 'leak' } }, { name: 'echo', arguments: { text: 'hello' } }] },
      { content: 'It said hello.' },
    );
    const result = await call('run_skill', { id: 'echoer', input: 'be brief' });
    expect(result.success).toBe(true);
    expect(result.output).toMatch(/^Skill "echoer" run #\d+: ok\.\nIt said hello\.$/);
    expect(calls).toEqual(['echo']);
    const first = fake.requests[0]?.body;
    // Only the skill's tools are offered; its instructions are in the system prompt; the input is in the task.
    expect(first?.tools?.map((tool) => tool.function.name)).toEqual(['echo']);
    expect(String(first?.messages[0]?.content)).toContain('Call echo with the text "hello"');
    expect(String(first?.messages.at(-1)?.content)).toContain('be brief');
    const toolMessages = fake.requests[1]?.body.messages.filter((message) => message.role === 'tool') ?? [];
    expect(String(toolMessages[0]?.content)).toBe('ERROR: Tool "secret_tool" is not allowed here (not in the tool list (echo)). Valid tools: echo.');
    expect(String(toolMessages[1]?.content)).toBe('echo: hello');
    // The run is recorded with its status, duration and output.
    const [run] = app.skills.store.runs('echoer') ?? [];
    expect(run).toMatchObject({ trigger: 'manual', status: 'ok', output: 'It said hello.' });
    expect(run?.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('run_skill reads SKILL.md fresh: a hand edit applies on the next run', async () => {
    writeSkill(t.dir, 'echoer', skillMd({ body: 'First version of the instructions.' }));
    fake.script({ content: 'one' }, { content: 'two' });
    await call('run_skill', { id: 'echoer' });
    writeSkill(t.dir, 'echoer', skillMd({ body: 'Second version of the instructions.', tools: '[secret_tool]' }));
    await call('run_skill', { id: 'echoer' });
    expect(String(fake.requests[1]?.body.messages[0]?.content)).toContain('Second version of the instructions.');
    expect(fake.requests[1]?.body.tools?.map((tool) => tool.function.name)).toEqual(['secret_tool']);
  });

  it('run_skill runs a draft or paused skill when named, and says so', async () => {
    writeSkill(t.dir, 'drafty', skillMd({ status: 'draft' }));
    fake.script({ content: 'ran' });
    const result = await call('run_skill', { id: 'drafty' });
    expect(result.success).toBe(true);
    expect(result.output).toMatch(/^Note: skill "drafty" is a draft; it ran only because it was asked for by id\./);
  });

  it('an unattended caller cannot run a paused skill', async () => {
    writeSkill(t.dir, 'sleepy', skillMd({ status: 'paused' }));
    const outcome = await app.tools.execute({ name: 'run_skill', arguments: { id: 'sleepy' }, conversationId: 'job-x', turnId: 'turn', origin, unattended: true });
    expect(outcome.result.success).toBe(false);
    expect(outcome.result.output).toContain('paused; an unattended run cannot start it');
    expect(fake.requests).toHaveLength(0);
  });

  it('run_skill refuses a skill with scripts when there is no sandbox, and records the refusal', async () => {
    writeSkill(t.dir, 'scripted', skillMd({ tools: '[sandbox_exec]' }), { 'scripts/run.sh': 'touch /tmp/should-not-exist\n' });
    const result = await call('run_skill', { id: 'scripted' });
    expect(result.success).toBe(false);
    expect(result.output).toContain('its scripts run only in the sandbox, and the sandbox is not available here');
    expect(fake.requests).toHaveLength(0);
    expect(app.skills.store.runs('scripted')[0]).toMatchObject({ status: 'refused' });
  });

  it('run_skill names the known skills when the id is unknown', async () => {
    writeSkill(t.dir, 'echoer', skillMd());
    const result = await call('run_skill', { id: 'nope' });
    expect(result).toEqual({ success: false, output: 'No skill with id "nope". Skills: echoer.' });
  });

  it('manage_skill pause/resume edits only the status line and moves the cron job at once; delete removes it', async () => {
    const text = skillMd({ trigger: '{type: cron, cron: "30 6 * * 1-5"}' }).replace('version: 1.0.0', 'version: 1.0.0 # keep this comment');
    writeSkill(t.dir, 'weekday', text);
    const scheduler = app.scheduler;
    app.skills.scheduling.syncAll();
    expect(scheduler?.get('skill-weekday')).toMatchObject({ enabled: true, cron: '30 6 * * 1-5' });

    const paused = await call('manage_skill', { id: 'weekday', action: 'pause' });
    expect(paused).toMatchObject({ success: true, output: expect.stringContaining('Paused skill "weekday". Scheduler: its schedule is paused.') });
    expect(scheduler?.get('skill-weekday')).toMatchObject({ enabled: false });
    const file = path.join(t.dir, 'skills', 'weekday', 'SKILL.md');
    expect(readFileSync(file, 'utf8')).toBe(text.replace('status: active', 'status: paused'));

    const resumed = await call('manage_skill', { id: 'weekday', action: 'resume' });
    expect(resumed.output).toMatch(/^Resumed skill "weekday"\. Scheduler: its schedule was resumed\. Next run: /);
    expect(scheduler?.get('skill-weekday')).toMatchObject({ enabled: true });

    const deleted = await call('manage_skill', { id: 'weekday', action: 'delete' });
    expect(deleted.output).toContain('Deleted skill "weekday"');
    expect(scheduler?.get('skill-weekday')).toBeUndefined();
    expect(app.skills.store.get('weekday')).toBeUndefined();
  });

  it('the scheduler hands a skill job to the skill: `familiar jobs run skill-<id>` is a restricted skill run, not a prompt', async () => {
    writeSkill(t.dir, 'nightly', skillMd({ name: 'Nightly', trigger: '{type: cron, cron: "0 23 * * *"}', tools: '[echo]' }));
    app.skills.scheduling.syncAll();
    fake.script({ content: 'nightly done' });
    const outcome = await app.scheduler.runNow('skill-nightly');
    expect(outcome).toMatchObject({ success: true, value: { status: 'ok', output: 'nightly done' } });
    const request = fake.requests[0]?.body;
    expect(String(request?.messages[0]?.content)).toContain('You are running the skill "Nightly"');
    expect(request?.tools?.map((tool) => tool.function.name)).toEqual(['echo']);
    expect(app.skills.store.runs('nightly')).toEqual([expect.objectContaining({ trigger: 'cron', status: 'ok' })]);
  });

  it('a cron skill hand-edited to manual is unscheduled on the next sync', async () => {
    writeSkill(t.dir, 'edited', skillMd({ trigger: '{type: cron, cron: "0 9 * * *"}' }));
    app.skills.scheduling.syncAll();
    expect(app.scheduler.get('skill-edited')).toBeDefined();
    writeSkill(t.dir, 'edited', skillMd({ trigger: '{type: manual}' }));
    app.skills.scheduling.syncAll();
    expect(app.scheduler.get('skill-edited')).toBeUndefined();
  });

  it('delete is high-risk: without approval nothing is deleted', async () => {
    await app.close(0);
    t = await makeTestApp(fake);
    app = t.app;
    writeSkill(t.dir, 'keep', skillMd());
    const result = await call('manage_skill', { id: 'keep', action: 'delete' });
    expect(result.success).toBe(false);
    expect(result.output).toContain('was not approved');
    expect(app.skills.store.get('keep')).toBeDefined();
  });

  it('reports a malformed SKILL.md in list_skills with the reason and still starts', async () => {
    writeSkill(t.dir, 'good', skillMd());
    writeSkill(t.dir, 'no-front', 'just text, no frontmatter');
    writeSkill(t.dir, 'bad-yaml', '---\nname: [unclosed\n---\nbody\n');
    writeSkill(t.dir, 'bad-cron', skillMd({ trigger: '{type: cron, cron: "61 * * * *"}' }));
    writeSkill(t.dir, 'greedy', skillMd({ tools: '[echo, install_skill]' }));
    mkdirSync(path.join(t.dir, 'skills', 'empty'), { recursive: true });
    await app.close(0);
    app = await t.restart();
    for (const tool of recordingTools(calls)) app.tools.register(tool);
    await app.start();
    expect(app.failedParts()).toEqual([]);
    const result = await call('list_skills', {});
    expect(result.output).toContain('good — Echo things [active]');
    expect(result.output).toContain('no-front — INVALID: SKILL.md must start with YAML frontmatter');
    expect(result.output).toMatch(/bad-yaml — INVALID: the frontmatter is not valid YAML/);
    expect(result.output).toMatch(/bad-cron — INVALID: trigger\.cron: "61 \* \* \* \*" is not a valid cron expression/);
    expect(result.output).toContain('greedy — INVALID: tools: a skill may not use install_skill');
    expect(result.output).toMatch(/empty — INVALID: no SKILL\.md in /);
    expect(t.logs.join('')).toContain('skills: bad-yaml is not valid and is skipped');
    const run = await call('run_skill', { id: 'bad-cron' });
    expect(run.output).toMatch(/^Skill "bad-cron" is not valid: trigger\.cron/);
  });

  it('a draft\'s schedule is checked when it is shown or activated, not at start; an active one\'s at start', async () => {
    // "0 7 * * 8" has the shape of a cron expression; day-of-week 8 does not exist.
    writeSkill(t.dir, 'draft-bad', skillMd({ status: 'draft', trigger: '{type: cron, cron: "0 7 * * 8"}' }));
    writeSkill(t.dir, 'active-bad', skillMd({ trigger: '{type: cron, cron: "0 7 * * 8"}' }));
    writeSkill(t.dir, 'draft-shape', skillMd({ status: 'draft', trigger: '{type: cron, cron: "every morning"}' }));
    await app.close(0);
    app = await t.restart();
    for (const tool of recordingTools(calls)) app.tools.register(tool);
    await app.start();
    const logs = t.logs.join('');
    expect(logs).toContain('skills: active-bad is not valid and is skipped');
    expect(logs).toContain('skills: draft-shape is not valid and is skipped');
    expect(logs).not.toContain('skills: draft-bad is not valid');
    expect(app.scheduler.get('skill-active-bad')).toBeUndefined();
    const listed = (await call('list_skills', {})).output;
    expect(listed).toMatch(/draft-bad — INVALID: trigger\.cron: "0 7 \* \* 8" is not a valid cron expression/);
    expect(listed).toMatch(/active-bad — INVALID: trigger\.cron: "0 7 \* \* 8" is not a valid cron expression/);
    const activated = await call('manage_skill', { id: 'draft-bad', action: 'activate' });
    expect(activated.success).toBe(false);
    expect(activated.output).toMatch(/^Skill "draft-bad" is not valid: trigger\.cron: "0 7 \* \* 8"/);
    expect(readFileSync(path.join(t.dir, 'skills', 'draft-bad', 'SKILL.md'), 'utf8')).toContain('status: draft');
    expect(app.scheduler.get('skill-draft-bad')).toBeUndefined();
  });

  it('the bundled skills are valid and start without email configured', async () => {
    const bundled = path.resolve('skills');
    await app.close(0);
    t = await makeTestApp(fake, { skills_dir: bundled });
    app = t.app;
    await app.start();
    const summaries = app.skills.list() ?? [];
    expect(summaries.map((summary) => [summary.id, summary.ok, summary.status, summary.trigger])).toEqual([
      ['inbox-triage', true, 'active', 'manual'],
      ['morning-briefing', true, 'draft', 'cron 0 7 * * * (Europe/Paris)'],
    ]);
    // A draft cron skill is not on the scheduler until activated.
    expect(app.scheduler.get('skill-morning-briefing')).toBeUndefined();
    // Its tools that are not configured (email) are simply not offered.
    fake.script({ content: 'Email is not configured.' });
    const result = await call('run_skill', { id: 'inbox-triage' });
    expect(result.success).toBe(true);
    expect(fake.requests[0]?.body.tools?.map((tool) => tool.function.name).sort()).toEqual(['memory_read', 'memory_search']);
  });
});
