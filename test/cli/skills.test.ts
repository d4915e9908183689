import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { tempDir, writeTestConfig } from '../helpers/app.js';
import { captureIo } from '../helpers/io.js';
import { skillMd, writeSkill } from '../skills/helpers.js';

describe('familiar skills', () => {
  let fake: FakeOpenAI;
  let dir: string;
  let configPath: string;
  const savedKey = process.env.TEST_LLM_KEY;

  beforeEach(async () => {
    fake = await startOpenAiServer();
    dir = tempDir();
    configPath = writeTestConfig(dir, fake, { log: { level: 'warn', format: 'json' } });
    process.env.TEST_LLM_KEY = fake.apiKey;
  });

  afterEach(async () => {
    if (savedKey === undefined) delete process.env.TEST_LLM_KEY;
    else process.env.TEST_LLM_KEY = savedKey;
    await fake.close();
  });

  const run = async (...args: string[]) => {
    const io = captureIo();
    const code = await runCli(['skills', '--config', configPath, ...args], io);
    return { code, out: io.out(), err: io.err() };
  };

  it('lists skills with status and trigger, and a malformed one with its reason', async () => {
    writeSkill(dir, 'echoer', skillMd());
    writeSkill(dir, 'broken', '---\nname: Broken\n---\n');
    const result = await run('list');
    expect(result.code).toBe(0);
    expect(result.out).toContain('echoer — Echo things [active]; trigger: manual; last run: never');
    expect(result.out).toContain('broken — INVALID: description: Required');
    const json = await run('list', '--json');
    expect(JSON.parse(json.out)).toEqual([
      expect.objectContaining({ id: 'broken', ok: false, problem: 'description: Required' }),
      expect.objectContaining({ id: 'echoer', ok: true, status: 'active', trigger: 'manual' }),
    ]);
  });

  it('shows a skill, runs it, pauses, resumes and removes it', async () => {
    writeSkill(dir, 'daily', skillMd({ name: 'Daily', trigger: '{type: cron, cron: "0 8 * * *"}' }));
    const shown = await run('show', 'daily');
    expect(shown.code).toBe(0);
    expect(shown.out).toContain('daily — Daily (version 1.0.0) [active]');
    expect(shown.out).toContain('origin: made locally (not from a hub)');
    expect(shown.out).toContain('tools requested: echo (not available here (not configured or unknown))');

    fake.script({ content: 'Daily result.' });
    const ran = await run('run', 'daily', 'some', 'input');
    expect(ran).toMatchObject({ code: 0, out: 'Daily result.\n' });
    expect(String(fake.requests[0]?.body.messages.at(-1)?.content)).toContain('Input for this run:\nsome input');

    const paused = await run('pause', 'daily');
    expect(paused.out).toMatch(/^Paused skill "daily"\./);
    expect(readFileSync(path.join(dir, 'skills', 'daily', 'SKILL.md'), 'utf8')).toContain('status: paused');
    const resumed = await run('resume', 'daily');
    expect(resumed.out).toMatch(/^Resumed skill "daily"\. Scheduler: its schedule was resumed\. Next run: .* at 08:00/);
    const removed = await run('remove', 'daily');
    expect(removed.out).toMatch(/^Deleted skill "daily"/);
    expect((await run('show', 'daily'))).toMatchObject({ code: 1, err: 'familiar skills: No skill with id "daily". There are no skills yet.\n' });
  });

  it('installs from a git hub as a quarantined draft and activates it', async () => {
    const hub = tempDir('familiar-cli-hub-');
    mkdirSync(path.join(hub, 'notes'), { recursive: true });
    writeFileSync(path.join(hub, 'notes', 'SKILL.md'), skillMd({ name: 'Notes', tools: '[memory_read]' }));
    writeFileSync(path.join(hub, 'index.json'), JSON.stringify({ skills: [{ id: 'notes', version: '1.0.0' }] }));
    for (const args of [['init', '-q'], ['add', '-A'], ['commit', '-q', '-m', 'hub']]) {
      execFileSync('git', ['-c', 'user.name=Hub', '-c', 'user.email=hub@example.com', ...args], { cwd: hub, stdio: 'ignore' });
    }
    const installed = await run('install', `file://${hub}`);
    expect(installed.code).toBe(0);
    expect(installed.out).toContain('Installed skill "notes" — Notes (version 1.0.0)');
    expect((await run('list')).out).toContain('notes — Notes [draft, quarantined]');
    const refused = await run('run', 'notes');
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('is quarantined');
    const activated = await run('activate', 'notes');
    expect(activated).toMatchObject({ code: 0, out: 'Activated skill "notes".\n' });
    expect((await run('list')).out).toContain('notes — Notes [active]');
  });

  it('explains its usage for an unknown action or a missing id', async () => {
    expect((await run('frobnicate')).code).toBe(2);
    const missing = await run('pause');
    expect(missing).toMatchObject({ code: 2, err: 'familiar skills: pause needs a skill id (see familiar skills list)\n' });
  });
});
