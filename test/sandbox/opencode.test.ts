// The coding-agent tool with the stand-in agent from the test image (docker/sandbox/fake-code-agent).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Daemon as App } from '../../src/daemon.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { TEST_IMAGE, TEST_LABEL, describeDocker, dockerClient } from '../helpers/docker.js';

const origin = { channel: 'cli', chatId: 'test', userId: 'owner' };
const KEY = 'fake-agent-key-6f1c2e9a';

describeDocker('opencode (coding agent)', () => {
  const docker = dockerClient();
  let fake: FakeOpenAI;
  let t: TestApp;
  let app: App;

  beforeAll(async () => {
    fake = await startOpenAiServer();
    t = await makeTestApp(fake, {
      tools: {
        sandbox: {
          image: TEST_IMAGE, pool_size: 0, labels: { [TEST_LABEL]: 'opencode' },
          // printenv shows that a key the agent prints is still kept out of the result.
          code_agent: { command: 'printenv FAKE_AGENT_KEY; fake-code-agent run', env: { FAKE_AGENT_KEY: KEY }, network: 'none' },
        },
      },
    });
    app = t.app;
    await app.start();
  });

  afterAll(async () => {
    await app?.close(0);
    await fake?.close();
  });

  const run = async (args: Record<string, unknown>) =>
    (await app.tools.execute({ name: 'opencode', arguments: args, conversationId: 'conv-code', turnId: 'turn', origin, approve: async () => ({ approved: true }) })).result;

  it('is high-risk', () => {
    const entry = app.tools.get('opencode');
    expect(entry && app.tools.riskOf(entry, { task: 'x' })).toBe('high');
  });

  it('returns the agent output and the files it changed, with the key only in its container', async () => {
    const first = await run({ task: 'write a haiku' });
    expect(first.success).toBe(true);
    expect(first.output).toContain('The coding agent finished.');
    expect(first.output).toContain('Files changed in the workspace:\ncreated  agent-output.txt\ncreated  key.sha256\ncreated  notes.md');
    expect(first.output).toContain('Done: write a haiku');
    // The key reached the agent's environment (it hashed it into the workspace)...
    const workspace = path.join(t.dir, 'data', 'workspaces', 'conv-code');
    expect(readFileSync(path.join(workspace, 'key.sha256'), 'utf8').trim()).toBe(createHash('sha256').update(KEY).digest('hex'));
    // ...and nowhere else: not in the result (it printed it), not in the logs, not in the audit table.
    expect(first.output).not.toContain(KEY);
    expect(first.output).toContain('[REDACTED]');
    expect(t.logs.join('\n')).not.toContain(KEY);
    const audit = app.db.prepare("SELECT input, output FROM audit WHERE tool = 'opencode'").all() as Array<{ input: string; output: string }>;
    expect(JSON.stringify(audit)).not.toContain(KEY);
    // Its one-off container is gone once it is done.
    expect(await docker.listContainers({ all: true, filters: { label: [`${TEST_LABEL}=opencode`, 'familiar.sandbox.role=oneoff'] } })).toEqual([]);
  });

  it('reports modified files on a second task and passes the agent argument', async () => {
    const second = await run({ task: 'add a line', agent: 'plan' });
    expect(second.output).toContain('modified agent-output.txt');
    expect(second.output).toContain('modified notes.md');
    const output = readFileSync(path.join(t.dir, 'data', 'workspaces', 'conv-code', 'agent-output.txt'), 'utf8');
    expect(output).toBe('--agent plan add a line\n');
  });

  it('is not registered without tools.sandbox.code_agent', async () => {
    const plain = await makeTestApp(fake, { tools: { sandbox: { image: TEST_IMAGE, pool_size: 0, labels: { [TEST_LABEL]: 'opencode' } } } });
    expect(plain.app.tools.get('opencode')).toBeUndefined();
    expect(plain.app.tools.get('sandbox_exec')).toBeDefined();
    await plain.app.close(0);
  });
});
