import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { startTelegramServer, type FakeTelegram } from '../fakes/telegram-server.js';
import { tempDir } from '../helpers/app.js';
import { alive, lastUserText, startDaemon, waitUntil, type Daemon } from '../helpers/daemon.js';
import { freePort, runFamiliar } from '../helpers/rig.js';

// Config reload against the real daemon process: each live key is changed in config.yaml (or .env) while it runs
// and its effect is seen through the fake Telegram and the fake LLM; a bad config is refused and the old one kept.

const OWNER = 1001;
const STRANGER = 2002;
let llm: FakeOpenAI;
let telegram: FakeTelegram;
let daemon: Daemon;
let dir: string;
let port: number;
/** The config as written to config.yaml; the tests change it freely (a wrong type on purpose, too). */
interface TestConfig {
  llm: Record<string, unknown>;
  channels: { telegram: { allowed_users: number[] } & Record<string, unknown> };
  [key: string]: unknown;
}
let config: TestConfig;

const reloadLines = (): string[] => daemon.stderr().split('\n').filter((line) => line.includes('"config reload'));

/** Writes config.yaml and waits for the daemon to log the reload it causes; returns that log line. */
async function rewrite(change: (config: TestConfig) => void): Promise<{ msg: string; applied?: string[]; restart?: string[]; problems?: string[] }> {
  const before = reloadLines().length;
  change(config);
  writeFileSync(path.join(dir, 'config.yaml'), stringify(config));
  const line = await waitUntil(() => reloadLines()[before], 15_000, 'the reload log line');
  return JSON.parse(line) as { msg: string };
}

/** One Telegram message and the text of the bot's next reply to that chat. */
async function ask(userId: number, text: string): Promise<string> {
  const before = telegram.messagesTo(userId).length;
  telegram.sendUserMessage({ chatId: userId, userId, text });
  const reply = await telegram.waitFor(() => telegram.messagesTo(userId)[before], 15_000);
  return reply.text ?? '';
}

const familiar = (...args: string[]) => runFamiliar(dir, args);

beforeAll(async () => {
  llm = await startOpenAiServer();
  telegram = await startTelegramServer();
  llm.handle((request) => ({ content: `re: ${lastUserText(request)}` }));
  dir = tempDir('familiar-reload-');
  port = await freePort();
  config = {
    timezone: 'Europe/Paris', data_dir: './data', memory_dir: './memory', skills_dir: './skills',
    log: { level: 'info', format: 'json' },
    llm: { base_url: llm.baseUrl, api_key: '${TEST_LLM_KEY}', model: '${MODEL_NAME}', max_retries: 0, timeout_s: 10 },
    channels: { telegram: { token: telegram.token, api_root: telegram.apiRoot, allowed_users: [OWNER] } },
    http: { listen: `127.0.0.1:${port}` },
  };
  writeFileSync(path.join(dir, 'config.yaml'), stringify(config));
  writeFileSync(path.join(dir, '.env'), 'MODEL_NAME=gpt-first\n', { mode: 0o600 });
  daemon = startDaemon(dir, { TEST_LLM_KEY: llm.apiKey });
  await daemon.ready;
}, 60_000);

afterAll(async () => {
  if (alive(daemon)) expect(await daemon.term()).toBe(0);
  await llm.close();
  await telegram.close();
});

describe('config reload in the running daemon', () => {
  it('SIGHUP reloads instead of ending the daemon', async () => {
    const before = reloadLines().length;
    daemon.child.kill('SIGHUP');
    const line = JSON.parse(await waitUntil(() => reloadLines()[before], 10_000, 'the reload')) as { msg: string; reason: string };
    expect(line).toMatchObject({ msg: 'config reloaded: nothing changed', reason: 'SIGHUP' });
    expect(alive(daemon)).toBe(true);
    expect(await ask(OWNER, 'still there?')).toBe('re: still there?');
  });

  it('allowlists: a user added to allowed_users is answered at once, without a restart', async () => {
    expect(await ask(STRANGER, 'hello')).toMatch(/I don't know you yet/);
    const line = await rewrite((c) => c.channels.telegram.allowed_users.push(STRANGER));
    expect(line.applied).toEqual(['channels.telegram.allowed_users']);
    expect(await ask(STRANGER, 'now?')).toBe('re: now?');
    await rewrite((c) => (c.channels.telegram.allowed_users = [OWNER]));
    // Taken off the list: the next message does not reach the LLM (the owner's, sent after it, does).
    const requests = llm.requests.length;
    telegram.sendUserMessage({ chatId: STRANGER, userId: STRANGER, text: 'and now?' });
    expect(await ask(OWNER, 'after the stranger')).toBe('re: after the stranger');
    expect(llm.requests.slice(requests).map(lastUserText)).toEqual(['after the stranger']);
  });

  it('the model: from config.yaml, and from .env when the config names a variable', async () => {
    await ask(OWNER, 'which model?');
    expect(llm.requests.at(-1)?.body.model).toBe('gpt-first');
    const before = reloadLines().length;
    writeFileSync(path.join(dir, '.env'), 'MODEL_NAME=gpt-from-env\n', { mode: 0o600 });
    await waitUntil(() => reloadLines()[before], 15_000, 'the reload after .env changed');
    await ask(OWNER, 'which model now?');
    expect(llm.requests.at(-1)?.body.model).toBe('gpt-from-env');
    const line = await rewrite((c) => (c.llm.model = 'gpt-from-yaml'));
    expect(line.applied).toEqual(['llm.model']);
    await ask(OWNER, 'and now?');
    expect(llm.requests.at(-1)?.body.model).toBe('gpt-from-yaml');
  });

  it('agents and routes: a route to a new agent changes the persona and the tools of the next turn', async () => {
    const line = await rewrite((c) => {
      c.agents = { terse: { persona: 'You are TERSE, the reload agent.', tools: ['memory_read'] } };
      c.routes = [{ channel: 'telegram', agent: 'terse' }];
    });
    expect(line.applied).toEqual(expect.arrayContaining(['agents.terse', 'routes']));
    await ask(OWNER, 'who are you?');
    expect(llm.lastSystemPrompt()).toContain('You are TERSE, the reload agent.');
    expect(llm.requests.at(-1)?.body.tools?.map((tool) => tool.function.name)).toEqual(['memory_read']);
    await rewrite((c) => {
      c.routes = [];
    });
    await ask(OWNER, 'back?');
    expect(llm.lastSystemPrompt()).not.toContain('TERSE');
  });

  it('tool settings: a lower tools.output_chars caps the next tool result', async () => {
    writeFileSync(path.join(dir, 'memory', 'big.md'), 'x'.repeat(6000));
    const line = await rewrite((c) => (c.tools = { output_chars: 1000 }));
    expect(line.applied).toEqual(['tools.output_chars']);
    llm.script({ toolCalls: [{ name: 'memory_read', arguments: { path: 'big.md' } }] }, { content: 'read it' });
    expect(await ask(OWNER, 'read big.md')).toBe('read it');
    const result = llm.requests.at(-1)?.body.messages.at(-1);
    expect(result?.role).toBe('tool');
    expect(String(result?.content).length).toBeLessThan(1300);
  });

  it('budgets: a daily token budget set while running stops the next turn before the LLM is called', async () => {
    const line = await rewrite((c) => (c.llm.daily_token_budget = 1));
    expect(line.applied).toEqual(['llm.daily_token_budget']);
    const requests = llm.requests.length;
    expect(await ask(OWNER, 'one more?')).toMatch(/token budget/);
    expect(llm.requests.length).toBe(requests);
    await rewrite((c) => (c.llm.daily_token_budget = 0));
    expect(await ask(OWNER, 'one more?')).toBe('re: one more?');
  });

  it('declared jobs: added, changed and removed in the jobs table as scheduler.jobs changes', async () => {
    const line = await rewrite((c) => (c.scheduler = { jobs: [{ id: 'from-reload', cron: '0 8 * * *', prompt: 'morning summary' }] }));
    expect(line.applied).toEqual(['scheduler.jobs']);
    const listed = JSON.parse((await familiar('jobs', 'list', '--json')).stdout) as Array<{ id: string; cron: string }>;
    expect(listed.find((job) => job.id === 'from-reload')).toMatchObject({ cron: '0 8 * * *' });
    await rewrite((c) => (c.scheduler = { jobs: [] }));
    const after = JSON.parse((await familiar('jobs', 'list', '--json')).stdout) as Array<{ id: string }>;
    expect(after.map((job) => job.id)).not.toContain('from-reload');
  });

  it('names what needs a restart, in the log and in familiar status, and keeps the running value', async () => {
    const line = await rewrite((c) => {
      c.agent = { max_concurrent_turns: 2 };
      c.llm.max_loops = 7;
    });
    expect(line.applied).toEqual(['llm.max_loops']);
    expect(line.restart).toEqual(['agent.max_concurrent_turns']);
    expect(line.msg).toBe('config reloaded: applied llm.max_loops; needs a restart to take effect: agent.max_concurrent_turns');
    const status = await familiar('status');
    expect(status.stdout).toContain('needs a restart to take effect: agent.max_concurrent_turns');
    // Undone on disk: nothing waits for a restart any more.
    await rewrite((c) => delete c.agent);
    expect((await familiar('status')).stdout).not.toContain('needs a restart');
  });

  it('refuses an invalid config whole, keeps running on the old one, and shows the refusal in familiar status', async () => {
    const line = await rewrite((c) => {
      c.llm.model = 'gpt-never-applied';
      c.llm.max_loops = 'many';
      c.routes = [{ channel: 'telegram', agent: 'nobody' }];
    });
    expect(line.msg).toMatch(/^config reload refused; still running on the config loaded at /);
    expect(line.problems).toEqual(['llm.max_loops: must be number, not the text "many"']);
    expect(alive(daemon)).toBe(true);
    await ask(OWNER, 'are you ok?');
    expect(llm.requests.at(-1)?.body.model).toBe('gpt-from-yaml');
    const status = await familiar('status');
    expect(status.stdout).toMatch(/reload REFUSED at .* \(config\.yaml changed\); running on the config above:\n\s+llm\.max_loops: must be number, not the text "many"/);
    // A route to an agent that does not exist is refused too (a check a start makes beyond the schema).
    const routes = await rewrite((c) => {
      c.llm.max_loops = 7;
    });
    expect(routes.problems).toEqual(['routes.0.agent: no agent named "nobody" in agents (declared: terse)']);
    const fixed = await rewrite((c) => {
      c.routes = [];
      c.llm.model = 'gpt-fixed';
    });
    expect(fixed.applied).toEqual(['llm.model']);
    expect((await familiar('status')).stdout).not.toContain('REFUSED');
  });

  it('applies a reload without dropping a turn that is running', async () => {
    llm.script({ content: 'slow answer', delayMs: 1500 });
    const before = telegram.messagesTo(OWNER).length;
    telegram.sendUserMessage({ chatId: OWNER, userId: OWNER, text: 'take your time' });
    await waitUntil(() => llm.requests.some((request) => lastUserText(request) === 'take your time'), 10_000, 'the slow turn');
    await rewrite((c) => (c.llm.model = 'gpt-during-a-turn'));
    const reply = await telegram.waitFor(() => telegram.messagesTo(OWNER)[before], 15_000);
    expect(reply.text).toBe('slow answer');
    expect(await ask(OWNER, 'next')).toBe('re: next');
    expect(llm.requests.at(-1)?.body.model).toBe('gpt-during-a-turn');
  });
});
