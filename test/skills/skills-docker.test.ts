import type { ContainerPool } from '../../src/sandbox/pool.js';
// Skill scripts and tests against the real Docker engine: they run in the sandbox, never on the host.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Daemon as App } from '../../src/daemon.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp, tempDir, type TestApp } from '../helpers/app.js';
import { TEST_IMAGE, TEST_LABEL, describeDocker } from '../helpers/docker.js';
import { skillMd, writeSkill } from './helpers.js';

const origin = { channel: 'cli', chatId: 'test', userId: 'owner' };

describeDocker('skill scripts in the sandbox', () => {
  let fake: FakeOpenAI;
  let t: TestApp;
  let app: App;
  let hostMarker: string;

  beforeAll(async () => {
    fake = await startOpenAiServer();
    t = await makeTestApp(fake, {
      tools: { sandbox: { image: TEST_IMAGE, pool_size: 0, memory_mb: 256, labels: { [TEST_LABEL]: 'skills' } } },
      approval: { auto_approve: ['manage_skill'] },
    });
    app = t.app;
    await app.start();
    hostMarker = path.join(tempDir('familiar-skill-marker-'), 'ran-on-host');
  });

  afterAll(async () => {
    await app?.close(0);
    await fake?.close();
  });

  const call = async (name: string, args: Record<string, unknown>) =>
    (await app.tools.execute({ name, arguments: args, conversationId: 'conv', turnId: 'turn', origin })).result;

  it('runs a skill script in the sandbox container, not on the host', async () => {
    // The script tries to write a file at a host path and reports who and where it is.
    const script = [
      'import os, pathlib',
      `p = pathlib.Path(${JSON.stringify(hostMarker)})`,
      'p.parent.mkdir(parents=True, exist_ok=True)',
      'p.write_text("x")',
      'print("uid", os.getuid(), "dockerenv", os.path.exists("/.dockerenv"), "cwd", os.getcwd())',
    ].join('\n');
    writeSkill(t.dir, 'probe', skillMd({ name: 'Probe', tools: '[sandbox_exec]', body: 'Run python3 scripts/probe.py with sandbox_exec and report its output.' }), { 'scripts/probe.py': script });
    fake.script(
      { toolCalls: [{ name: 'sandbox_exec', arguments: { command: 'python3 scripts/probe.py' } }] },
      { content: 'Probe done.' },
    );
    const result = await call('run_skill', { id: 'probe' });
    expect(result.success).toBe(true);
    const toolMessage = fake.requests[1]?.body.messages.find((message) => message.role === 'tool');
    const output = String(toolMessage?.content);
    expect(output).toContain('exit code 0');
    expect(output).toMatch(/uid 1000 dockerenv (True|False) cwd \/workspace/);
    // The write happened inside the container's tmpfs, not at that path on the host.
    expect(existsSync(hostMarker)).toBe(false);
    // The skill's script was copied into its own workspace, where the container saw it.
    expect(readFileSync(path.join(t.dir, 'data', 'workspaces', 'skill-probe', 'scripts', 'probe.py'), 'utf8')).toBe(script);
    expect((app.sandbox as ContainerPool | undefined)?.containerOf('skill-probe')).toBeDefined();
  });

  it('create_skill runs the generated test in the sandbox: a failing test keeps the skill a draft', async () => {
    fake.script({
      content: JSON.stringify({
        id: 'failing',
        skill_md: skillMd({ name: 'Failing', status: 'active', tools: '[sandbox_exec]', extra: 'test: python3 scripts/check.py' }),
        files: [{ path: 'scripts/check.py', content: 'import sys\nprint("self-test: 2 + 2 =", 2 + 2)\nsys.exit(0 if 2 + 2 == 5 else 3)\n' }],
      }),
    });
    const result = await call('create_skill', { description: 'a skill whose check fails; activate it' });
    expect(result.success).toBe(true);
    expect(result.output).toContain('Created skill "failing" (draft)');
    expect(result.output).toContain('Test (python3 scripts/check.py): the test failed (exit code 3); its output:\nself-test: 2 + 2 = 4');
    expect(result.output).toContain('Its test did not pass: fix it before it is activated.');
    expect(app.skills.store.get('failing')).toMatchObject({ success: true, value: { status: 'draft' } });
    expect(app.skills.store.runs('failing')).toEqual([expect.objectContaining({ trigger: 'test', status: 'failed' })]);
    // Activating it later still requires the test to pass.
    const activate = await call('manage_skill', { id: 'failing', action: 'activate' });
    expect(activate.success).toBe(false);
    expect(activate.output).toMatch(/^Not activated: the test failed \(exit code 3\)/);
  });

  it('create_skill runs a passing generated test, and the skill stays a draft until the person activates it', async () => {
    fake.script({
      content: JSON.stringify({
        id: 'passing',
        skill_md: skillMd({ name: 'Passing', status: 'active', tools: '[sandbox_exec]', extra: 'test: python3 scripts/check.py' }),
        files: [{ path: 'scripts/check.py', content: 'print("ok")\n' }],
      }),
    });
    const result = await call('create_skill', { description: 'a skill whose check passes; activate it' });
    expect(result.output).toContain('Created skill "passing" (draft)');
    expect(result.output).toContain('Test (python3 scripts/check.py): the test passed; its output:\nok');
    expect(app.skills.store.get('passing')).toMatchObject({ success: true, value: { status: 'draft' } });
  });
});
