// Script tools: NAME.yaml beside a script. On the host (when config.yaml allows that tool) with a real process, and in
// the real Docker sandbox with the example csv_summary.
import { chmodSync, copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/daemon.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp, tempDir } from '../helpers/app.js';
import { waitUntil } from '../helpers/daemon.js';
import { TEST_IMAGE, TEST_LABEL, describeDocker } from '../helpers/docker.js';
import { makeHarness, type Harness } from './helpers.js';

const EXAMPLES = fileURLToPath(new URL('../../examples/tools/', import.meta.url));

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const spec = (lines: string) => `description: A test script.\nparameters:\n  type: object\n  properties:\n    n: { type: integer }\n${lines}`;

/** A script tool allowed on the host, made executable. */
async function hostTool(name: string, script: string, yamlExtra = '', config: Record<string, unknown> = {}): Promise<Harness> {
  const made = await makeHarness({ [`${name}.yaml`]: spec(yamlExtra), [`${name}.sh`]: script }, { tools: { scripts: { [name]: { host: true, ...config } } } });
  chmodSync(path.join(made.toolsDir, `${name}.sh`), 0o755);
  await made.custom.reload();
  return made;
}

describe('script tools on the host', () => {
  it('gets the arguments as JSON on stdin; its stdout is the result', async () => {
    harness = await hostTool('double', '#!/bin/sh\npython3 -c \'import json,sys; print(json.load(sys.stdin)["n"] * 2)\'\n');
    expect(harness.custom.report().problems).toEqual([]);
    expect((await harness.call('double', { n: 21 })).result).toEqual({ success: true, output: '42' });
  });

  it('is checked against its YAML schema before the script runs', async () => {
    harness = await hostTool('double', '#!/bin/sh\necho ran\n');
    const { result } = await harness.call('double', { n: 'many' });
    expect(result.output).toMatch(/Invalid arguments for double: n must be integer/);
  });

  it('fails with its exit status and stderr when it exits non-zero', async () => {
    harness = await hostTool('broken', '#!/bin/sh\necho "partial" ; echo "no such device" >&2\nexit 3\n');
    expect((await harness.call('broken', { n: 1 })).result).toEqual({ success: false, output: 'broken exited with status 3.\nIts stderr: no such device\nIts stdout: partial' });
  });

  it('is stopped at its timeout_s, with everything it started', async () => {
    const marker = path.join(tempDir(), 'child.pid');
    harness = await hostTool('slow', `#!/bin/sh\nsleep 30 &\necho $! > ${marker}\nwait\n`, 'timeout_s: 1\n');
    const { result } = await harness.call('slow', { n: 1 });
    expect(result).toEqual({ success: false, output: 'slow did not finish within 1 s and was stopped.' });
    const pid = Number((await import('node:fs')).readFileSync(marker, 'utf8'));
    await waitUntil(() => !alive(pid), 2000, 'the background child to be killed');
  });

  it('is asked about before each call unless its YAML says risk: low', async () => {
    harness = await hostTool('double', '#!/bin/sh\necho 1\n');
    expect(harness.registry.get('double')?.tool.risk).toBe('high');
    await harness.close();
    harness = await hostTool('double', '#!/bin/sh\necho 1\n', 'risk: low\n');
    expect(harness.registry.get('double')?.tool.risk).toBe('low');
  });

  it('passes tools.scripts.NAME.env, and the conversation', async () => {
    harness = await hostTool('env_one', '#!/bin/sh\necho "$LAMP_HOST $FAMILIAR_TOOL $FAMILIAR_CONVERSATION"\n', '', { env: { LAMP_HOST: '192.168.1.9' } });
    expect((await harness.call('env_one', { n: 1 })).result.output).toBe('192.168.1.9 env_one c1');
  });
});

describe('script tool definitions', () => {
  const problemOf = async (files: Record<string, string>, overrides: Record<string, unknown> = {}, sandboxReady = false) => {
    harness = await makeHarness(files, overrides, { sandboxReady });
    const problems = harness.custom.report().problems;
    await harness.close();
    harness = undefined;
    return problems.map((problem) => `${problem.name}: ${problem.error}`);
  };

  it('says what is wrong in the YAML, naming the key', async () => {
    expect(await problemOf({ 'a.yaml': spec('timeout: 3\n'), 'a.sh': '' })).toEqual(['a.yaml: unknown key timeout (known: name, description, parameters, script, risk, timeout_s, runs_on, network, effects, external)']);
    expect(await problemOf({ 'a.yaml': 'description: [unclosed\n', 'a.sh': '' })).toEqual([expect.stringMatching(/^a\.yaml: not valid YAML \(line \d\)/)]);
    expect(await problemOf({ 'a.yaml': 'parameters: { type: object }\n', 'a.sh': '' })).toEqual(['a.yaml: description: Required']);
    expect(await problemOf({ 'a.yaml': spec('risk: medium\n'), 'a.sh': '' })).toEqual([expect.stringMatching(/^a\.yaml: risk: Invalid enum value/)]);
    expect(await problemOf({ 'a.yaml': 'description: x\nparameters: { type: object, properties: { n: { type: numbr } } }\n', 'a.sh': '' }, { tools: { scripts: { a: { host: true } } } }))
      .toEqual(['a.yaml: parameters is not a valid JSON Schema: parameters.properties.n.type is "numbr", not a JSON Schema type (string, number, integer, boolean, object, array, null)']);
  });

  it('finds the script beside it, or says which one to name', async () => {
    expect(await problemOf({ 'a.yaml': spec('') }, { tools: { scripts: { a: { host: true } } } })).toEqual(['a.yaml: no script beside it: add a.sh (or .py, …), or name it with script:']);
    expect(await problemOf({ 'a.yaml': spec(''), 'a.sh': '', 'a.py': '' }, { tools: { scripts: { a: { host: true } } } })).toEqual(['a.yaml: more than one script could be it (a.py, a.sh); name the one with script:']);
  });

  it('does not also load a script written in JavaScript as a module', async () => {
    harness = await makeHarness({ 'a.yaml': spec(''), 'a.mjs': '#!/usr/bin/env node\nprocess.stdout.write("from node");\n' }, { tools: { scripts: { a: { host: true } } } });
    chmodSync(path.join(harness.toolsDir, 'a.mjs'), 0o755);
    writeFileSync(path.join(harness.toolsDir, 'touch.txt'), '');
    const report = await harness.custom.reload();
    expect(report.problems).toEqual([]);
    expect(report.files.map((file) => [file.name, file.kind])).toEqual([['a.yaml', 'script']]);
  });

  it('runs in the sandbox unless config.yaml lets that one tool run on the host', async () => {
    expect(await problemOf({ 'a.yaml': spec(''), 'a.sh': '' })).toEqual(['a.yaml: script tools run in the sandbox, and tools.sandbox is not configured; configure it, or let this one run on the host with tools.scripts.a.host: true']);
    expect(await problemOf({ 'a.yaml': spec('runs_on: host\n'), 'a.sh': '' }, { tools: { sandbox: {} } }, true))
      .toEqual(['a.yaml: it asks to run on the host; allow that in config.yaml with tools.scripts.a.host: true (it then runs with the daemon\'s rights), or set runs_on: sandbox']);
    expect(await problemOf({ 'a.yaml': spec('network: true\n'), 'a.sh': '' }, { tools: { sandbox: {} } }, true)).toEqual(['a.yaml: network: true needs tools.sandbox.allow_network: true']);
    expect(await problemOf({ 'a.yaml': spec(''), 'a.sh': '' }, { tools: { sandbox: {} } }, false)).toEqual(['a.yaml: script tools run in the sandbox, which is not available (see familiar doctor)']);
  });

  it('needs an executable script to run it on the host', async () => {
    expect(await problemOf({ 'a.yaml': spec(''), 'a.sh': 'echo' }, { tools: { scripts: { a: { host: true } } } })).toEqual(['a.yaml: the script a.sh is not executable; chmod +x it (and start it with a #! line)']);
  });

  it('warns in doctor about tools.scripts entries that name no script tool', async () => {
    harness = await makeHarness({}, { tools: { scripts: { lamp: { host: true } } } });
    const lines = await harness.custom.part.doctor?.();
    expect(lines).toContainEqual(expect.objectContaining({ status: 'warn', label: 'tools.scripts.lamp' }));
  });
});

describeDocker('script tools in the sandbox', () => {
  let fake: FakeOpenAI;
  let app: Daemon;

  beforeAll(async () => {
    fake = await startOpenAiServer();
    const toolsDir = path.join(tempDir('familiar-mytools-'), 'tools');
    mkdirSync(toolsDir);
    for (const file of ['csv_summary.yaml', 'csv_summary.py']) copyFileSync(path.join(EXAMPLES, file), path.join(toolsDir, file));
    writeFileSync(path.join(toolsDir, 'whoami.yaml'), 'description: Says where it runs.\nparameters: { type: object, properties: { say: { type: string } } }\n');
    writeFileSync(path.join(toolsDir, 'whoami.sh'), '#!/bin/bash\nread -r args\necho "uid=$(id -u) cwd=$PWD args=$args tool=$FAMILIAR_TOOL"\necho "stderr line" >&2\nexit 4\n');
    app = (await makeTestApp(fake, { tools_dir: toolsDir, tools: { sandbox: { image: TEST_IMAGE, pool_size: 0, labels: { [TEST_LABEL]: 'custom-tools' } } } })).app;
    await app.start();
  });

  afterAll(async () => {
    await app?.close(0);
    await fake?.close();
  });

  it('runs the example CSV script tool on a file in the conversation\'s workspace', async () => {
    expect(app.customTools.report().problems).toEqual([]);
    const origin = { channel: 'cli', chatId: 'csv', userId: 'owner' };
    const conversationId = app.conversations.resolve(origin.channel, origin.chatId);
    const workspace = await app.sandbox?.workspaces.ensure(conversationId);
    if (!workspace) throw new Error('no workspace');
    writeFileSync(path.join(workspace, 'expenses.csv'), 'date;amount;shop\n2026-01-01;12,50;bakery\n2026-01-02;7,50;market\n');
    fake.script({ toolCalls: [{ name: 'csv_summary', arguments: { path: 'expenses.csv' } }] }, { content: 'done' });
    await app.turns.start({ text: 'summarise my expenses', origin, source: 'cli' });
    const toolMessage = fake.requests.at(-1)?.body.messages.find((message) => message.role === 'tool');
    expect(toolMessage?.content).toBe('expenses.csv: 2 row(s), 3 column(s): date, amount, shop\namount: min 7.5, max 12.5, mean 10.00, total 20');
  });

  it('runs as the sandbox user in /workspace, with the arguments on stdin, and fails with its status and stderr', async () => {
    const { result } = await app.tools.execute({ name: 'whoami', arguments: { say: "it's" }, conversationId: 'c-who', turnId: 't', origin: { channel: 'cli', chatId: 'who' } });
    expect(result.success).toBe(false);
    expect(result.output).toMatch(/^whoami exited with status 4\.\nIts stderr: stderr line\nIts stdout: uid=1000 cwd=\/workspace args=\{"say":"it's"\} tool=whoami/);
    // The script was a temporary file in the container: nothing of it is left in the workspace.
    const workspace = await app.sandbox?.workspaces.ensure('c-who');
    expect(existsSync(path.join(workspace ?? '', 'whoami.sh'))).toBe(false);
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
