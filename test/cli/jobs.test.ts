import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { tempDir, writeTestConfig } from '../helpers/app.js';
import { captureIo } from '../helpers/io.js';

describe('familiar jobs', () => {
  let fake: FakeOpenAI;
  let configPath: string;
  const previousKey = process.env.TEST_LLM_KEY;

  beforeAll(async () => {
    fake = await startOpenAiServer();
    // The config reads the key from the environment, as an operator's would.
    process.env.TEST_LLM_KEY = fake.apiKey;
    configPath = writeTestConfig(tempDir(), fake, { log: { level: 'warn', format: 'json' } });
  });

  afterAll(async () => {
    if (previousKey === undefined) delete process.env.TEST_LLM_KEY;
    else process.env.TEST_LLM_KEY = previousKey;
    await fake.close();
  });

  const jobs = async (...args: string[]) => {
    const io = captureIo();
    const code = await runCli(['jobs', '--config', configPath, ...args], io);
    return { code, out: io.out(), err: io.err() };
  };

  it('adds a job from natural language and lists it with its schedule and next run', async () => {
    const added = await jobs('add', '--id', 'mail', '--when', 'every weekday at 8', 'Summarise my unread mail');
    expect(added.code).toBe(0);
    expect(added.out).toMatch(/^mail — At 08:00, Monday through Friday \(Europe\/Paris; cron 0 8 \* \* 1-5\)\n {2}next run: \w+day,? .* at 08:00 \(Europe\/Paris, UTC\+0[12]:00\)/);
    expect(added.err).toMatch(/scheduler.default_chat is not set/);
    const listed = await jobs('list', '--json');
    expect(JSON.parse(listed.out)).toEqual([expect.objectContaining({ id: 'mail', cron: '0 8 * * 1-5', spec: 'every weekday at 8', source: 'cli', enabled: true })]);
  });

  it('refuses a bad expression with a clear error and exit status 2', async () => {
    const bad = await jobs('add', '--cron', '61 * * * *', 'x');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/"61 \* \* \* \*" is not a valid cron expression .*5 fields/);
    const vague = await jobs('add', '--when', 'sometime soonish', 'x');
    expect(vague.code).toBe(2);
    expect(vague.err).toMatch(/Could not understand the time "sometime soonish"\. when accepts one-shots like "in 20 minutes"/);
  });

  it('pauses and resumes a job', async () => {
    await jobs('add', '--id', 'walk', '--cron', '0 18 * * *', 'Remind me to walk');
    const paused = await jobs('pause', 'walk');
    expect(paused.out).toMatch(/walk \(paused\)[\s\S]*next run: paused/);
    const resumed = await jobs('resume', 'walk');
    expect(resumed.out).toMatch(/next run: \w+day,? .* at 18:00/);
  });

  it('runs a job now, prints the result, and shows it in the run log', async () => {
    fake.handle(() => ({ content: 'Three unread mails, nothing urgent.' }));
    await jobs('add', '--id', 'now', '--when', 'every day at 7:30', 'Check mail');
    const ran = await jobs('run', 'now');
    expect(ran.code).toBe(0);
    expect(ran.out).toBe('Three unread mails, nothing urgent.\n');
    const runs = await jobs('runs', 'now');
    expect(runs.out).toMatch(/^#\d+ ok · scheduled \d{4}-\d\d-\d\d \d\d:\d\d · started .* · \d+\.\d s · manual\n {2}error: not delivered: no chat \(set scheduler.default_chat\)\n {2}output: Three unread mails, nothing urgent\./);
  });

  it('removes a job, and says so when the id is unknown', async () => {
    await jobs('add', '--id', 'gone', '--when', 'in 3 hours', 'x');
    expect((await jobs('remove', 'gone')).out).toBe('removed gone\n');
    const again = await jobs('remove', 'gone');
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/no job with id "gone"/);
  });
});
