// The approval gate keeps its open questions so any surface (the console) can list and answer them; the first
// answer anywhere wins, and the chat that asked hears how it ended. The race between a chat button and the
// console is tested here with a prompter that behaves like the Telegram/Discord ones (it claims before acting).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Daemon as App } from '../../src/daemon.js';
import type { ApprovalAnswer, ApprovalPrompt, ApprovalPrompter } from '../../src/approval/prompter.js';
import { OpenQuestions } from '../../src/approval/open-questions.js';
import type { ApprovalRequest } from '../../src/tools/call.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp } from '../helpers/app.js';

/** A chat prompter with buttons: `press` is a person's tap; it claims the question first, like the real ones. */
function buttonPrompter(): ApprovalPrompter & { prompts: ApprovalPrompt[]; press(answer: 'approve' | 'deny'): boolean; shown: Array<string> } {
  const prompts: ApprovalPrompt[] = [];
  const shown: string[] = [];
  let resolve: ((answer: ApprovalAnswer) => void) | undefined;
  return {
    prompts,
    shown,
    ask(prompt) {
      prompts.push(prompt);
      void prompt.settled?.then(({ outcome }) => shown.push(outcome));
      return new Promise<ApprovalAnswer>((done) => {
        resolve = done;
      });
    },
    press(answer) {
      const prompt = prompts.at(-1);
      if (!prompt?.claim?.(answer, '@ada')) return false;
      resolve?.(answer);
      return true;
    },
  };
}

const request = (overrides: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
  tool: 'manage_skill', params: { id: 'old-notes', action: 'delete' }, risk: 'high', callId: 'call-1', conversationId: 'telegram-1001-x',
  origin: { channel: 'telegram', chatId: '1001', userId: '1001' }, unattended: false, taint: ['web page example.org'], reason: 'risk', ...overrides,
});

describe('open approval questions, answered from any surface', () => {
  let fake: FakeOpenAI;
  let app: App;

  beforeEach(async () => {
    fake = await startOpenAiServer();
    app = (await makeTestApp(fake)).app;
  });

  afterEach(async () => {
    await app.close(0).catch(() => undefined);
    await fake.close();
  });

  it('lists a question with its provenance while it is open, and not after', async () => {
    const prompter = buttonPrompter();
    const decision = app.approvals.handlerFor(prompter)(request());
    const [open] = app.approvals.questions.list();
    expect(open).toMatchObject({ tool: 'manage_skill', channel: 'telegram', chatId: '1001', taint: ['web page example.org'] });
    expect(open?.text).toContain('example.org');
    expect(open?.text).toContain('old-notes');
    prompter.press('approve');
    expect(await decision).toEqual({ approved: true, by: 'telegram:1001' });
    expect(app.approvals.questions.list()).toEqual([]);
  });

  it('the console answers first: the turn goes on, the chat\'s later press is refused and its message says who answered', async () => {
    const prompter = buttonPrompter();
    const decision = app.approvals.handlerFor(prompter)(request());
    const id = app.approvals.questions.list()[0]?.id ?? '';
    expect(app.approvals.questions.answer(id, 'approve', { by: 'the owner', surface: 'console' })).toEqual({ success: true });
    expect(await decision).toMatchObject({ approved: true });
    expect(prompter.press('deny')).toBe(false);
    await Promise.resolve();
    expect(prompter.shown).toEqual(['✅ Approved by the owner in the console.']);
  });

  it('the chat answers first: the console\'s answer is refused with a reason, nothing changes', async () => {
    const prompter = buttonPrompter();
    const decision = app.approvals.handlerFor(prompter)(request());
    const id = app.approvals.questions.list()[0]?.id ?? '';
    expect(prompter.press('deny')).toBe(true);
    const late = app.approvals.questions.answer(id, 'approve', { by: 'the owner', surface: 'console' });
    expect(late).toMatchObject({ success: false, error: expect.stringContaining('no longer open') });
    expect(await decision).toEqual({ approved: false, reason: 'the person said no' });
  });

  it('both at once, many times over: exactly one answer wins each time, and the decision is that answer', async () => {
    for (let round = 0; round < 50; round += 1) {
      const prompter = buttonPrompter();
      const decision = app.approvals.handlerFor(prompter)(request({ callId: `call-${round}` }));
      const id = app.approvals.questions.list()[0]?.id ?? '';
      const consoleFirst = round % 2 === 0;
      const results = await Promise.all(consoleFirst
        ? [Promise.resolve(app.approvals.questions.answer(id, 'deny', { surface: 'console' }).success), Promise.resolve(prompter.press('approve'))]
        : [Promise.resolve(prompter.press('approve')), Promise.resolve(app.approvals.questions.answer(id, 'deny', { surface: 'console' }).success)]);
      expect(results.filter(Boolean)).toHaveLength(1);
      expect((await decision).approved).toBe(!consoleFirst);
    }
    expect(app.approvals.questions.list()).toEqual([]);
  });

  it('a question that times out or whose turn stops leaves the list, and a late answer is refused', async () => {
    const questions = new OpenQuestions();
    const events: string[] = [];
    questions.subscribe((event) => events.push(event.type));
    const timed = questions.ask({ callId: 'a', tool: 't', channel: 'discord', chatId: 'c', userId: undefined, conversationId: 'x', text: 'q', taint: [], timeoutMs: 20 });
    expect((await timed.settled).answer).toBe('timeout');
    expect(questions.answer(timed.question.id, 'approve', { surface: 'console' }).success).toBe(false);
    const stop = new AbortController();
    const stopped = questions.ask({ callId: 'b', tool: 't', channel: 'discord', chatId: 'c', userId: undefined, conversationId: 'x', text: 'q', taint: [], timeoutMs: 60_000, signal: stop.signal });
    stop.abort();
    expect(await stopped.settled).toMatchObject({ answer: 'stopped', outcome: '⏹ Stopped before an answer: not approved.' });
    expect(questions.list()).toEqual([]);
    expect(events).toEqual(['opened', 'closed', 'opened', 'closed']);
    // Ids are unguessable: an answer naming no open question changes nothing.
    expect(questions.answer('not-an-id', 'approve', { surface: 'console' }).success).toBe(false);
  });
});
