import { afterEach, describe, expect, it } from 'vitest';
import type { Daemon as App } from '../../src/daemon.js';
import type { ChannelAdapter, OutboundReply } from '../../src/channels/types.js';
import type { CreateJobInput } from '../../src/scheduler/scheduler.js';
import type { JobRun } from '../../src/scheduler/types.js';
import { startOpenAiServer, type FakeOpenAI, type RecordedRequest } from '../fakes/openai-server.js';
import { makeTestApp, tempDir, type TestApp } from '../helpers/app.js';

// Job runs through the real app (agent, registry, SQLite) with the fake LLM; delivery goes to a
// recording channel adapter registered in the hub, so each test is about the scheduler, not a platform.

interface Recorder extends ChannelAdapter {
  sent: Array<{ chatId: string; reply: OutboundReply }>;
}

function recorder(name = 'rec'): Recorder {
  const sent: Recorder['sent'] = [];
  return { name, sent, async send(chatId, reply) { sent.push({ chatId, reply }); } };
}

async function waitUntil<T>(probe: () => T | undefined | false, timeoutMs = 8000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const lastUser = (request: RecordedRequest): string => {
  const content = request.body.messages.filter((message) => message.role === 'user').at(-1)?.content;
  return typeof content === 'string' ? content : '';
};

describe('job runs in the app', () => {
  let fake: FakeOpenAI;
  let t: TestApp;
  let app: App;
  let rec: Recorder;

  const setUp = async (overrides: Record<string, unknown> = {}) => {
    fake = await startOpenAiServer();
    t = await makeTestApp(fake, overrides);
    app = t.app;
    rec = recorder();
    app.channels.register(rec);
  };
  const scheduler = () => {
    const found = app.scheduler;
    if (!found) throw new Error('scheduler not installed');
    return found;
  };
  const create = (input: Partial<CreateJobInput>) => {
    const created = scheduler().create({ prompt: 'Report', when: 'in 1 second', source: 'chat', origin: { channel: 'rec', chatId: 'chat-a' }, ...input });
    if (!created.success) throw new Error(created.error);
    return created.value;
  };
  const finishedRun = (jobId: string) => waitUntil(() => scheduler().runs(jobId).find((run: JobRun) => run.status !== 'running'));

  afterEach(async () => {
    await app.close(0);
    await fake.close();
  });

  it('sends the result of a job made in the terminal to scheduler.default_chat', async () => {
    await setUp({ scheduler: { default_chat: 'rec:owner' } });
    fake.handle(() => ({ content: 'terminal job done' }));
    const job = create({ origin: { channel: 'cli', chatId: 'chat' }, source: 'cli' });
    await app.start();
    const run = await finishedRun(job.id);
    expect(run).toMatchObject({ status: 'ok', deliveredTo: 'rec:owner' });
    expect(rec.sent).toEqual([{ chatId: 'owner', reply: { text: 'terminal job done' } }]);
  });

  it('keeps the result in the run record and logs it when there is no chat to send it to', async () => {
    await setUp();
    fake.handle(() => ({ content: 'nobody will read this' }));
    const job = create({ origin: { channel: 'cli', chatId: 'terminal' }, source: 'cli' });
    await app.start();
    const run = await finishedRun(job.id);
    expect(run).toMatchObject({ status: 'ok', output: 'nobody will read this', error: expect.stringMatching(/not delivered: no chat \(set scheduler.default_chat\)/) });
    expect(rec.sent).toEqual([]);
    const line = t.logs.find((entry) => entry.includes('job result not delivered'));
    expect(line).toMatch(/"result":"nobody will read this"/);
  });

  it('never sends a job\'s result to another chat than the one that made it', async () => {
    await setUp({ scheduler: { default_chat: 'rec:owner' } });
    fake.handle((request) => ({ content: `done: ${lastUser(request)}` }));
    const a = create({ prompt: 'for A', origin: { channel: 'rec', chatId: 'chat-a' } });
    const b = create({ prompt: 'for B', origin: { channel: 'rec', chatId: 'chat-b' } });
    await app.start();
    await finishedRun(a.id);
    await finishedRun(b.id);
    expect(rec.sent.map((sent) => `${sent.chatId} ${sent.reply.text}`).sort()).toEqual(['chat-a done: for A', 'chat-b done: for B']);
  });

  it('runs in the job\'s own conversation, unattended, without high-risk tools, and reports a denied call', async () => {
    await setUp();
    app.tools.register({ name: 'launch_rocket', description: 'High risk.', risk: 'high', parameters: { type: 'object', properties: {} }, async execute() { return { success: true, output: 'launched' }; } });
    let posted = 0;
    app.tools.register({
      name: 'post_thing', description: 'GET is fine, POST is high risk.', risk: (params: { method?: string }) => (params.method === 'POST' ? 'high' : 'low'),
      parameters: { type: 'object', properties: { method: { type: 'string' } } },
      async execute() { posted += 1; return { success: true, output: 'posted' }; },
    });
    fake.handle((request) =>
      request.body.messages.at(-1)?.role === 'tool' ? { content: 'I tried.' } : { toolCalls: [{ name: 'post_thing', arguments: { method: 'POST' } }] },
    );
    const job = create({});
    await app.start();
    const run = await finishedRun(job.id);
    const offered = fake.requests[0]?.body.tools?.map((tool) => tool.function.name) ?? [];
    expect(offered).toContain('post_thing');
    expect(offered).not.toContain('launch_rocket');
    expect(posted).toBe(0);
    expect(fake.requests[1]?.body.messages.find((message) => message.role === 'tool')?.content).toMatch(/not approved: the unattended job .* may not call high-risk post_thing/);
    expect(run).toMatchObject({ status: 'ok', error: "denied: post_thing (not in the job's approve list)" });
    expect(rec.sent[0]?.reply.text).toMatch(/^I tried\.\n\n\(Not done: post_thing needs approval/);
    expect(app.db.prepare('SELECT conversation_id FROM turns').all()).toEqual([{ conversation_id: `job-${job.id}` }]);
  });

  it('lets a job call a high-risk tool listed in its approve list', async () => {
    await setUp();
    let posted = 0;
    app.tools.register({
      name: 'post_thing', description: 'POST is high risk.', risk: () => 'high', parameters: { type: 'object', properties: {} },
      async execute() { posted += 1; return { success: true, output: 'posted' }; },
    });
    fake.handle((request) => (request.body.messages.at(-1)?.role === 'tool' ? { content: 'Posted.' } : { toolCalls: [{ name: 'post_thing', arguments: {} }] }));
    const job = create({ approve: ['post_thing'] });
    await app.start();
    expect(await finishedRun(job.id)).toMatchObject({ status: 'ok', output: 'Posted.' });
    expect(posted).toBe(1);
  });

  it('offers only scheduler.unattended_tools when it is set', async () => {
    await setUp({ scheduler: { unattended_tools: ['memory_read'] } });
    fake.handle(() => ({ content: 'ok' }));
    const job = create({});
    await app.start();
    await finishedRun(job.id);
    expect(fake.requests[0]?.body.tools?.map((tool) => tool.function.name)).toEqual(['memory_read']);
  });

  it('runs under the agent routed for channel "scheduler", within the unattended policy', async () => {
    await setUp({ agents: { jobs: { tools: ['memory_read', 'memory_write'], model: 'gpt-jobs' } }, routes: [{ channel: 'scheduler', agent: 'jobs' }] });
    fake.handle(() => ({ content: 'ok' }));
    const job = create({});
    await app.start();
    await finishedRun(job.id);
    expect(fake.requests[0]?.body.tools?.map((tool) => tool.function.name).sort()).toEqual(['memory_read', 'memory_write']);
    expect(fake.requests[0]?.body.model).toBe('gpt-jobs');
  });

  it('delivers a short failure notice when the run fails, and records the error', async () => {
    await setUp();
    fake.handle(() => ({ status: 500 }));
    const job = create({});
    await app.start();
    const run = await finishedRun(job.id);
    expect(run).toMatchObject({ status: 'failed', error: expect.stringMatching(/server error \(500\)/), deliveredTo: 'rec:chat-a' });
    expect(rec.sent[0]?.reply.text).toMatch(new RegExp(`^⚠ Scheduled job "${job.id}" failed: .*500`));
  });

  it('delivers a reminder\'s text as it is, without an LLM call', async () => {
    await setUp();
    const job = create({ kind: 'reminder', prompt: 'water the plants' });
    await app.start();
    expect(await finishedRun(job.id)).toMatchObject({ status: 'ok', deliveredTo: 'rec:chat-a' });
    // As written, with the Snooze and Done buttons every delivered reminder carries (docs/memory-and-notes.md#reminders).
    expect(rec.sent).toHaveLength(1);
    expect(rec.sent[0]).toMatchObject({ chatId: 'chat-a', reply: { text: '⏰ water the plants' } });
    expect(rec.sent[0]?.reply.buttons?.map((button) => button.label)).toEqual(['💤 10 min', '💤 1 h', '💤 Tomorrow', '✅ Done']);
    expect(fake.requests).toHaveLength(0);
  });
});

describe('jobs declared in config.yaml', () => {
  it('are upserted at start by id, keep their history when edited, and go when removed from the config', async () => {
    const fake = await startOpenAiServer();
    const dir = tempDir();
    const declared = (prompt: string) => ({ scheduler: { jobs: [{ id: 'morning', cron: '0 8 * * 1-5', prompt, deliver_to: 'telegram:42' }] } });
    let t = await makeTestApp(fake, declared('Summarise my mail'), dir);
    // Making the daemon changes nothing (a one-shot command beside the daemon makes it too); starting stores them.
    expect(t.app.scheduler.get('morning')).toBeUndefined();
    await t.app.start();
    const first = t.app.scheduler.get('morning');
    expect(first).toMatchObject({ source: 'config', cron: '0 8 * * 1-5', prompt: 'Summarise my mail', deliverTo: 'telegram:42' });
    await t.app.close(0);

    t = await makeTestApp(fake, declared('Summarise my unread mail'), dir);
    await t.app.start();
    const second = t.app.scheduler.get('morning');
    expect(second).toMatchObject({ prompt: 'Summarise my unread mail', createdAt: first?.createdAt, nextRunAt: first?.nextRunAt });
    await t.app.close(0);

    t = await makeTestApp(fake, {}, dir);
    await t.app.start();
    expect(t.app.scheduler.get('morning')).toBeUndefined();
    await t.app.close(0);
    await fake.close();
  });

  it('stop the start with the key path when a schedule is malformed', async () => {
    const fake = await startOpenAiServer();
    try {
      await expect(makeTestApp(fake, { scheduler: { jobs: [{ id: 'bad', cron: '61 * * * *', prompt: 'x' }] } })).rejects.toThrow(
        /config: scheduler\.jobs\.0\.cron: "61 \* \* \* \*" is not a valid cron expression/,
      );
    } finally {
      await fake.close();
    }
  });
});
