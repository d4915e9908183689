// Crash safety of the real daemon (`node dist/main.js start`; run `npm run build` first) against the fake LLM and
// the fake Telegram: SIGKILL at chosen points, restart, and check what a person and the next LLM call would see.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { Sqlite } from '../../src/db/sqlite.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeTelegram } from '../fakes/telegram-server.js';
import type { RecordedRequest } from '../fakes/openai-server.js';
import { lastUserText, requestProblems, waitUntil } from '../helpers/daemon.js';
import { TEST_IMAGE, TEST_LABEL, describeDocker, dockerClient } from '../helpers/docker.js';
import { OWNER, useProcessRig } from '../helpers/rig.js';

let slowServer: Server | undefined;
// A folder with a config for the fake LLM and the fake Telegram (OWNER allowed), closed after each test.
const setUp = useProcessRig();

afterEach(() => {
  slowServer?.closeAllConnections();
  slowServer?.close();
  slowServer = undefined;
});

const answers = (fake: FakeTelegram): string[] => fake.messagesTo(OWNER).map((message) => message.text ?? '');
const hasToolResult = (request: RecordedRequest): boolean => request.body.messages.at(-1)?.role === 'tool';

function openDb(dir: string): BetterSqlite3.Database {
  return new Sqlite(path.join(dir, 'data', 'familiar.db'), { readonly: true });
}

describe('kill -9 in the middle of a turn', () => {
  it('during a slow tool: the message is answered once after the restart, and every LLM request stays well-formed', async () => {
    // A tool that never finishes: the http tool GETs a local server that accepts the request and never answers.
    let toolRequests = 0;
    slowServer = createServer(() => {
      toolRequests += 1;
    });
    await new Promise<void>((resolve) => slowServer?.listen(0, '127.0.0.1', resolve));
    const slowUrl = `http://127.0.0.1:${(slowServer.address() as AddressInfo).port}/slow`;
    const { dir, llm: fake, telegram: tg, start: run } = await setUp({ tools: { http: { allow_private: true } } });
    let restarted = false;
    fake.handle((request) => {
      if (restarted) return { content: `answer to "${lastUserText(request)}"` };
      return hasToolResult(request) ? { content: 'unexpected' } : { toolCalls: [{ name: 'http', arguments: { url: slowUrl } }] };
    });

    const first = run();
    await first.ready;
    tg.sendUserMessage({ chatId: OWNER, userId: OWNER, text: 'fetch it' });
    await waitUntil(() => toolRequests === 1, 15_000, 'the slow tool to be running');
    await first.kill9();
    expect(answers(tg)).toEqual([]);

    restarted = true;
    const second = run();
    await second.ready;
    await waitUntil(() => answers(tg).length === 1, 15_000, 'the replayed answer');
    expect(answers(tg)).toEqual(['answer to "fetch it"']);
    tg.sendUserMessage({ chatId: OWNER, userId: OWNER, text: 'and now?' });
    await waitUntil(() => answers(tg).length === 2, 15_000, 'the next answer');
    expect(answers(tg)).toEqual(['answer to "fetch it"', 'answer to "and now?"']);
    expect(await second.term()).toBe(0);

    expect(fake.requests.map(requestProblems).flat()).toEqual([]);
    expect(fake.requests.map(lastUserText)).toEqual(['fetch it', 'fetch it', 'and now?']);
    expect(second.stderr()).toMatch(/answering a message whose turn was cut by a crash or kill/);
    const db = openDb(dir);
    try {
      // The cut turn had not reached its first commit (the question is stored with the first step): it left
      // nothing behind, so the replayed question is in the history once.
      expect(db.prepare('SELECT status FROM turns ORDER BY started_at').all()).toEqual([{ status: 'ok' }, { status: 'ok' }]);
      expect(db.prepare("SELECT body FROM messages WHERE role = 'user'").all().map((row) => JSON.parse((row as { body: string }).body).content)).toEqual(['fetch it', 'and now?']);
      expect(db.prepare("SELECT status, message FROM channel_inbox ORDER BY received_at").all()).toEqual([
        { status: 'answered', message: null }, { status: 'answered', message: null },
      ]);
    } finally {
      db.close();
    }
  }, 90_000);

  it('during the LLM call after a tool call: the stored call keeps its result and the replayed turn goes on from there', async () => {
    const { dir, llm: fake, telegram: tg, start: run } = await setUp();
    let restarted = false;
    fake.handle((request) => {
      if (restarted) return { content: `done: ${lastUserText(request)}` };
      return hasToolResult(request) ? { hang: true } : { toolCalls: [{ name: 'memory_write', arguments: { path: 'todo.md', content: '- buy milk\n', mode: 'append' } }] };
    });
    const first = run();
    await first.ready;
    tg.sendUserMessage({ chatId: OWNER, userId: OWNER, text: 'note: buy milk' });
    await waitUntil(() => fake.requests.some(hasToolResult), 15_000, 'the LLM call after the tool call');
    await first.kill9();

    restarted = true;
    const second = run();
    await second.ready;
    await waitUntil(() => answers(tg).length === 1, 15_000, 'the replayed answer');
    expect(await second.term()).toBe(0);
    expect(answers(tg)).toEqual(['done: note: buy milk']);
    expect(fake.requests.map(requestProblems).flat()).toEqual([]);
    // The replayed turn sees the first attempt's call and result, then the message again.
    const replayed = fake.requests.at(-1)?.body.messages.map((message) => message.role);
    expect(replayed).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
    expect(readFileSync(path.join(dir, 'memory', 'todo.md'), 'utf8')).toBe('- buy milk\n');
    // The cut turn had committed its first step: its row says it was interrupted.
    const db = openDb(dir);
    try {
      expect(db.prepare('SELECT status, llm_calls AS llmCalls FROM turns ORDER BY started_at').all()).toEqual([{ status: 'interrupted', llmCalls: 1 }, { status: 'ok', llmCalls: 1 }]);
    } finally {
      db.close();
    }
  }, 90_000);

  it('repairs a tool call stored without its result, so the next LLM request is accepted', async () => {
    // What a kill between storing a call and its results would leave (the agent stores them in one transaction,
    // so this row is written by hand): the next turn must still send a valid request.
    const { dir, llm: fake, telegram: tg, start: run } = await setUp();
    fake.handle((request) => ({ content: `ok: ${lastUserText(request)}` }));
    const first = run();
    await first.ready;
    tg.sendUserMessage({ chatId: OWNER, userId: OWNER, text: 'hello' });
    await waitUntil(() => answers(tg).length === 1, 15_000, 'the first answer');
    await first.kill9();
    const db = new Sqlite(path.join(dir, 'data', 'familiar.db'));
    const { conversation_id: conversationId } = db.prepare('SELECT conversation_id FROM messages LIMIT 1').get() as { conversation_id: string };
    const dangling = { role: 'assistant', content: null, tool_calls: [{ id: 'call_cut', type: 'function', function: { name: 'memory_read', arguments: '{}' } }] };
    db.prepare("INSERT INTO messages (conversation_id, turn_id, role, body, tokens, created_at) VALUES (?, 'cut', 'assistant', ?, 10, ?)").run(conversationId, JSON.stringify(dangling), Date.now());
    db.close();

    const second = run();
    await second.ready;
    tg.sendUserMessage({ chatId: OWNER, userId: OWNER, text: 'still there?' });
    await waitUntil(() => answers(tg).length === 2, 15_000, 'the answer after the repair');
    expect(await second.term()).toBe(0);
    const last = fake.requests.at(-1);
    expect(last && requestProblems(last)).toEqual([]);
    expect(last?.body.messages.find((message) => message.role === 'tool')).toMatchObject({ tool_call_id: 'call_cut', content: expect.stringMatching(/interrupted/) });
  }, 90_000);
});

describe('kill -9 during memory writes', () => {
  it('leaves every memory file whole: the old content or one complete new version, never a mix or a cut', async () => {
    const { dir, llm: fake, telegram: tg, start: run } = await setUp({ llm: { max_loops: 100 } });
    const FILES = 12;
    const SIZE = 16_000;
    const body = (version: string, file: number): string => `${`${version} f${file} `.repeat(Math.ceil(SIZE / 10))}`.slice(0, SIZE) + '\n';
    const names = Array.from({ length: FILES }, (_, file) => `notes/file-${file}.md`);
    // The old content, as a person would have left it.
    mkdirSync(path.join(dir, 'memory', 'notes'), { recursive: true });
    for (const [file, name] of names.entries()) writeFileSync(path.join(dir, 'memory', name), body('old', file));
    // First the model reads every file (the hand-edit guard wants that before an overwrite), then it
    // overwrites all of them again and again, one new version per LLM call.
    let version = 0;
    fake.handle((request) => {
      if (!hasToolResult(request)) return { toolCalls: names.map((name) => ({ name: 'memory_read', arguments: { path: name } })) };
      version += 1;
      return { toolCalls: names.map((name, file) => ({ name: 'memory_write', arguments: { path: name, content: body(`v${version}`, file), mode: 'overwrite' } })) };
    });
    const first = run();
    await first.ready;
    tg.sendUserMessage({ chatId: OWNER, userId: OWNER, text: 'rewrite the notes' });
    const killAfter = 4 + Math.floor(Math.random() * 4);
    await waitUntil(() => version >= killAfter, 30_000, `${killAfter} rounds of writes`);
    // A few milliseconds into the next round of writes.
    await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 15)));
    await first.kill9();

    const versions = new Set(['old', ...Array.from({ length: version }, (_, index) => `v${index + 1}`)]);
    for (const [file, name] of names.entries()) {
      const content = readFileSync(path.join(dir, 'memory', name), 'utf8');
      const found = [...versions].find((candidate) => content === body(candidate, file));
      expect(found, `${name} is whole (${content.length} chars, starts ${JSON.stringify(content.slice(0, 12))})`).toBeDefined();
    }
    // Leftover temp files of a cut write are dotfiles, which the memory store never lists or reads.
    const visible = readdirSync(path.join(dir, 'memory', 'notes')).filter((name) => !name.startsWith('.'));
    expect(visible.sort()).toEqual(names.map((name) => name.replace('notes/', '')).sort());
  }, 90_000);
});

describe('kill -9 after answering', () => {
  it('does not answer again updates that Telegram delivers a second time after the restart', async () => {
    const { llm: fake, telegram: tg, start: run } = await setUp();
    fake.handle((request) => ({ content: `re: ${lastUserText(request)}` }));
    const first = run();
    await first.ready;
    const updates = ['one', 'two', 'three'].map((text) => tg.sendUserMessage({ chatId: OWNER, userId: OWNER, text }).updateId);
    await waitUntil(() => answers(tg).length === 3, 15_000, 'three answers');
    await first.kill9();
    // Telegram redelivers what it thinks was not confirmed (the offset lives on its side).
    for (const updateId of updates) tg.redeliver(updateId);

    const second = run();
    await second.ready;
    tg.sendUserMessage({ chatId: OWNER, userId: OWNER, text: 'four' });
    // 'four' comes after the redelivered updates, so once it is answered they have been handled.
    await waitUntil(() => answers(tg).length >= 4, 15_000, 'the fourth answer');
    expect(await second.term()).toBe(0);
    expect(answers(tg)).toEqual(['re: one', 're: two', 're: three', 're: four']);
    expect(fake.requests.map(lastUserText)).toEqual(['one', 'two', 'three', 'four']);
    expect(second.stderr().match(/redelivered message dropped/g)).toHaveLength(3);
  }, 90_000);
});

describe('SIGTERM during a turn', () => {
  it('stops taking updates, lets the running turn answer, exits 0; the message that came meanwhile is answered by the next start', async () => {
    const { llm: fake, telegram: tg, start: run } = await setUp();
    fake.handle((request) => (lastUserText(request) === 'slow question' ? { content: 'slow answer', delayMs: 1500 } : { content: `re: ${lastUserText(request)}` }));
    const first = run();
    await first.ready;
    tg.sendUserMessage({ chatId: OWNER, userId: OWNER, text: 'slow question' });
    await waitUntil(() => fake.requests.length === 1, 15_000, 'the slow LLM call');
    first.child.kill('SIGTERM');
    await waitUntil(() => first.stderr().includes('shutting down'), 5000, 'the shutdown to begin');
    tg.sendUserMessage({ chatId: OWNER, userId: OWNER, text: 'sent during shutdown' });
    expect(await first.exited).toBe(0);
    expect(answers(tg)).toEqual(['slow answer']);
    expect(fake.requests.map(lastUserText)).toEqual(['slow question']);
    expect(first.stderr()).toMatch(/"msg":"stopped"/);

    const second = run();
    await second.ready;
    await waitUntil(() => answers(tg).length === 2, 15_000, 'the answer to the message sent during the shutdown');
    expect(await second.term()).toBe(0);
    expect(answers(tg)).toEqual(['slow answer', 're: sent during shutdown']);
  }, 90_000);
});

describeDocker('kill -9 during a sandbox command', () => {
  const docker = dockerClient();
  const labelled = async (value: string) => (await docker.listContainers({ all: true, filters: { label: [`${TEST_LABEL}=${value}`] } })).map((info) => info.Id);

  it('leaves no orphan container: the restart removes the killed daemon\'s, and SIGTERM removes its own', async () => {
    const label = `crash-${randomBytes(4).toString('hex')}`;
    const { llm: fake, telegram: tg, start: run } = await setUp({ tools: { sandbox: { image: TEST_IMAGE, pool_size: 1, labels: { [TEST_LABEL]: label } } } });
    let restarted = false;
    fake.handle((request) => {
      if (restarted || hasToolResult(request)) return { content: `finished: ${lastUserText(request)}` };
      return { toolCalls: [{ name: 'sandbox_exec', arguments: { command: 'sleep 120' } }] };
    });
    const first = run();
    await first.ready;
    tg.sendUserMessage({ chatId: OWNER, userId: OWNER, text: 'run the long job' });
    const before = await waitUntil(async () => {
      const ids = await labelled(label);
      const running = await Promise.all(ids.map(async (id) => ((await docker.getContainer(id).top().catch(() => ({ Processes: [] }))).Processes ?? []).some((row: string[]) => row.join(' ').includes('sleep 120'))));
      return running.some(Boolean) && ids;
    }, 30_000, 'the sandbox command to run');
    await first.kill9();
    expect((await labelled(label)).length).toBeGreaterThan(0);

    restarted = true;
    const second = run();
    await second.ready;
    for (const id of before) await waitUntil(async () => (await labelled(label)).every((other) => other !== id), 15_000, `container ${id.slice(0, 12)} removed`);
    await waitUntil(() => answers(tg).length === 1, 15_000, 'the replayed answer');
    expect(await second.term()).toBe(0);
    expect(await labelled(label)).toEqual([]);
    expect(answers(tg)).toEqual(['finished: run the long job']);
  }, 120_000);
});
