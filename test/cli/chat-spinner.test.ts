import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { tempDir, writeTestConfig } from '../helpers/app.js';
import { MAIN } from '../helpers/daemon.js';
import { KEY, spawnInPty } from '../helpers/pty.js';

// `familiar chat` in a real terminal: while the model thinks, something moves, so a slow answer does not look like a
// hang. (Piped output gets no spinner: the other chat tests read it line by line.)
describe('familiar chat in a terminal', () => {
  let llm: FakeOpenAI;
  beforeAll(async () => {
    llm = await startOpenAiServer();
  });
  afterAll(async () => llm.close());

  it('shows a spinner while the model thinks, and the answer in its place', async () => {
    const dir = tempDir('familiar-chat-pty-');
    writeTestConfig(dir, llm, { log: { level: 'warn', format: 'json' } });
    llm.script({ content: 'Forty-two.', delayMs: 1500 });
    const session = spawnInPty([process.execPath, MAIN, 'chat', '--config', `${dir}/config.yaml`], {
      cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir, TZ: 'UTC', TEST_LLM_KEY: llm.apiKey },
    });
    let at = await session.waitFor('you> ');
    session.type(`What is six times seven?${KEY.enter}`);
    at = await session.waitFor('thinking…', { from: at });
    // Still thinking: the answer has not come yet, the spinner is what shows.
    expect(session.screen().slice(at)).not.toContain('Forty-two.');
    at = await session.waitFor('familiar> Forty-two.', { from: at });
    session.type(`/exit${KEY.enter}`);
    expect(await session.exited).toBe(0);
  }, 60_000);
});
