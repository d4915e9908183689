// End to end through the fake LLM: a chat message makes the model call sandbox_exec, and the answer quotes its output.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Daemon as App } from '../../src/daemon.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp } from '../helpers/app.js';
import { TEST_IMAGE, TEST_LABEL, describeDocker } from '../helpers/docker.js';

describeDocker('sandbox end to end', () => {
  let fake: FakeOpenAI;
  let app: App;

  beforeAll(async () => {
    fake = await startOpenAiServer();
    app = (await makeTestApp(fake, { tools: { sandbox: { image: TEST_IMAGE, pool_size: 1, labels: { [TEST_LABEL]: 'e2e' } } } })).app;
    await app.start();
  });

  afterAll(async () => {
    await app?.close(0);
    await fake?.close();
  });

  it('runs the command the model asks for and answers with its output', async () => {
    fake.script({ toolCalls: [{ name: 'sandbox_exec', arguments: { command: "python3 -c 'import platform; print(6*7, platform.python_version())'" } }] });
    // The model's second reply quotes what the tool message said.
    fake.handle((request) => {
      const tool = request.body.messages.findLast((message) => message.role === 'tool');
      const stdout = /--- stdout \(\d+ bytes\) ---\n([^\n]*)/.exec(String(tool?.content ?? ''))?.[1];
      return { content: `The command printed: ${stdout ?? '(nothing)'}` };
    });
    const result = await app.turns.start({ text: 'What is 6 times 7? Use Python.', origin: { channel: 'cli', chatId: 'e2e' }, source: 'cli' });
    expect(result.status).toBe('ok');
    expect(result.toolCalls).toBe(1);
    expect(result.text).toMatch(/^The command printed: 42 3\.11\.\d+$/);
    const tools = fake.requests[0]?.body.tools?.map((tool) => tool.function.name) ?? [];
    expect(tools).toEqual(expect.arrayContaining(['sandbox_exec', 'read', 'write', 'edit', 'glob', 'grep', 'listdir']));
  });
});
