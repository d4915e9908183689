import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it, describe } from 'vitest';
import type { Daemon } from '../../src/daemon.js';
import type { BeatOutcome } from '../../src/heartbeat/beat.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';

const HALF_HOUR = 30 * 60_000;
// 2026-11-26 08:00 in Paris (UTC+1).
const START = Date.UTC(2026, 10, 26, 7, 0);

describe('the heartbeat over simulated days', () => {
  let fake: FakeOpenAI;
  let test: TestApp;
  let app: Daemon;
  let clock = START;
  const sent: string[] = [];

  /** One beat every half hour for `hours` simulated hours; the outcomes. */
  async function beats(hours: number): Promise<BeatOutcome[]> {
    const out: BeatOutcome[] = [];
    for (let index = 0; index < hours * 2; index += 1) {
      clock += HALF_HOUR;
      out.push(await app.heartbeat.beat());
    }
    return out;
  }

  function addTask(line: string): void {
    const file = path.join(test.dir, 'memory', 'tasks.md');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${line}\n`, { flag: 'a' });
  }

  beforeAll(async () => {
    fake = await startOpenAiServer();
    test = await makeTestApp(fake, { scheduler: { default_chat: 'telegram:42' }, heartbeat: { every: '30m', pause_after_days: 3 } }, undefined, { now: () => new Date(clock) });
    app = test.app;
    app.channels.register({ name: 'telegram', send: async (_chatId, reply) => void sent.push(reply.text) });
    // Only the heartbeat's part: it listens for the person's messages (its timer's first beat is a minute away).
    await app.parts.find((part) => part.name === 'heartbeat')?.start?.();
  });

  afterEach(() => {
    app.heartbeat.resume();
    fake.handle(() => ({ content: '{"nothing_to_report": true}' }));
  });

  afterAll(async () => {
    await app?.close(0);
    await fake?.close();
  });

  it('makes no model call in an idle day', async () => {
    const outcomes = await beats(24);
    expect(fake.requests).toHaveLength(0);
    expect(outcomes.every((outcome) => outcome.kind === 'idle')).toBe(true);
  });

  it('calls the model exactly once when a task falls due, offers it no tools, and delivers the report', async () => {
    const before = fake.requests.length;
    addTask('- [ ] Pay the rent 📅 2026-11-28');
    fake.handle(() => ({ content: '{"report": "The rent is due today."}' }));
    const outcomes = await beats(24);
    expect(fake.requests.length - before).toBe(1);
    const request = fake.requests.at(-1)?.body;
    expect(JSON.stringify(request?.messages)).toContain('Pay the rent');
    expect(request?.tools ?? []).toHaveLength(0);
    expect(outcomes.filter((outcome) => outcome.kind === 'reported')).toHaveLength(1);
    expect(sent.at(-1)).toBe('The rent is due today.');
  });

  it('does not deliver a nothing_to_report answer', async () => {
    const count = sent.length;
    addTask('- [ ] Water the plants 📅 2026-11-27');
    const outcome = await app.heartbeat.beat();
    expect(outcome.kind).toBe('nothing_to_report');
    expect(sent).toHaveLength(count);
  });

  it('stops for the day with one notice when the day budget is crossed', async () => {
    const settings = app.config.heartbeat;
    if (!settings) throw new Error('no heartbeat settings');
    settings.day_tokens = 500;
    try {
      fake.handle(() => ({ content: '{"nothing_to_report": true}', usage: { prompt_tokens: 450, completion_tokens: 100 } }));
      const count = sent.length;
      const before = fake.requests.length;
      addTask('- [ ] Call the bank 📅 2026-11-27');
      expect((await app.heartbeat.beat()).kind).toBe('nothing_to_report');
      addTask('- [ ] Book the train 📅 2026-11-27');
      const later = await beats(3);
      expect(fake.requests.length - before).toBe(1);
      expect(later.every((outcome) => outcome.kind === 'skipped')).toBe(true);
      expect(sent.slice(count)).toHaveLength(1);
      expect(sent.at(-1)).toMatch(/stopped for today: today's heartbeat tokens reached heartbeat\.day_tokens/);
      expect(app.heartbeat.status().state).toBe('stopped');
    } finally {
      settings.day_tokens = 40_000;
    }
  });

  it('stops with one notice when the provider refuses the key, until resumed', async () => {
    const count = sent.length;
    const before = fake.requests.length;
    fake.handle(() => ({ status: 401, error: 'Incorrect API key provided.' }));
    addTask('- [ ] Renew the passport 📅 2026-11-27');
    expect((await app.heartbeat.beat()).kind).toBe('stopped');
    addTask('- [ ] Send the form 📅 2026-11-27');
    await beats(24);
    expect(fake.requests.length - before).toBe(1);
    expect(sent.slice(count)).toHaveLength(1);
    expect(sent.at(-1)).toMatch(/The heartbeat stopped: .*401/);
    fake.handle(() => ({ content: '{"nothing_to_report": true}' }));
    app.heartbeat.resume();
    expect((await app.heartbeat.beat()).kind).toBe('nothing_to_report');
  });

  it('pauses after the set days without a message from the person, and their next message resumes it', async () => {
    await beats(24 * 3);
    const before = fake.requests.length;
    addTask('- [ ] Pick up the parcel 📅 2026-11-20');
    const paused = await app.heartbeat.beat();
    expect(paused.kind).toBe('skipped');
    expect(app.heartbeat.status().state).toBe('paused');
    expect(fake.requests.length).toBe(before);
    fake.handle(() => ({ content: 'Hello!' }));
    await app.turns.start({ text: 'hi', origin: { channel: 'telegram', chatId: '42', userId: '42' }, source: 'chat' });
    fake.handle(() => ({ content: '{"nothing_to_report": true}' }));
    expect((await app.heartbeat.beat()).kind).toBe('nothing_to_report');
  });

  it('does not report again what it reported before a restart', async () => {
    addTask('- [ ] Return the library books 📅 2026-11-27');
    expect((await app.heartbeat.beat()).kind).toBe('nothing_to_report');
    const again = await test.restart();
    try {
      const before = fake.requests.length;
      expect((await again.heartbeat.beat()).kind).toBe('idle');
      expect(fake.requests.length).toBe(before);
    } finally {
      await again.close(0);
    }
  });
});

describe('/heartbeat in chats', () => {
  let fake: FakeOpenAI;
  let app: Daemon;

  beforeAll(async () => {
    fake = await startOpenAiServer();
    ({ app } = await makeTestApp(fake, { scheduler: { default_chat: 'telegram:42' }, heartbeat: { every: '30m' } }, undefined, { mode: 'command' }));
  });

  afterAll(async () => {
    await app?.close(0);
    await fake?.close();
  });

  const input = (chatId: string, args: string) => ({ channel: 'telegram', chatId, userId: chatId, args, conversationId: 'c' });

  it('is refused in a chat that is not the one it reports to', async () => {
    const reply = await app.commands.get('heartbeat')?.run(input('7', 'pause'));
    expect(reply).toMatch(/^Only the owner/);
    expect(app.heartbeat.status().state).toBe('on');
  });

  it('pauses and resumes from the chat it reports to', async () => {
    expect(await app.commands.get('heartbeat')?.run(input('42', 'pause'))).toMatch(/paused/);
    expect(app.heartbeat.status().state).toBe('paused');
    await app.commands.get('heartbeat')?.run(input('42', 'resume'));
    expect(app.heartbeat.status().state).toBe('on');
  });
});
