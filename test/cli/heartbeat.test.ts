import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { tempDir, writeTestConfig } from '../helpers/app.js';
import { captureIo } from '../helpers/io.js';

describe('familiar heartbeat', () => {
  let fake: FakeOpenAI;
  let configPath: string;

  async function heartbeat(...args: string[]) {
    const io = captureIo();
    const code = await runCli(['heartbeat', '--config', configPath, ...args], io);
    return { code, out: io.out(), err: io.err() };
  }

  beforeAll(async () => {
    fake = await startOpenAiServer();
    process.env.TEST_LLM_KEY = fake.apiKey;
    configPath = writeTestConfig(tempDir(), fake, { heartbeat: { every: '30m', day_tokens: 10_000 } });
  });

  afterAll(async () => {
    delete process.env.TEST_LLM_KEY;
    await fake?.close();
  });

  it('says the heartbeat is on, with today\'s tokens against its day budget', async () => {
    const { code, out } = await heartbeat('status');
    expect(code).toBe(0);
    expect(out).toMatch(/^Heartbeat: on, every 1800 s\./);
    expect(out).toMatch(/: 0 tokens in 0 model call\(s\) of 10,000 \(heartbeat\.day_tokens\)/);
  });

  it('pauses and resumes, and status says so', async () => {
    expect((await heartbeat('pause')).out).toMatch(/Heartbeat: paused \(paused by hand\)/);
    expect((await heartbeat('status', '--json')).out).toMatch(/"state": "paused"/);
    expect((await heartbeat('resume')).out).toMatch(/Heartbeat: on/);
  });

  it('runs one beat that finds nothing new and calls no model', async () => {
    const { code, out } = await heartbeat('run');
    expect(code).toBe(0);
    expect(out).toContain('nothing new, no model call');
    expect(fake.requests).toHaveLength(0);
  });

  it('refuses an unknown action with the usage', async () => {
    const { code, err } = await heartbeat('explode');
    expect(code).toBe(2);
    expect(err).toContain('familiar heartbeat: unknown command');
  });
});
