import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { QuestionHandle } from '../../src/approval/open-questions.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { startPushRig, type PushRig } from '../helpers/push.js';

// An approval pushed to the phone is answered by the service worker's POST to /console/push/answer. What
// authenticates that POST is the one-time token in the (encrypted) notification: bound to one question, spent on
// first use, never a session cookie. These are the ways it must not work.
describe('approvals answered from a notification', () => {
  let fake: FakeOpenAI;
  let rig: PushRig;
  let handle: QuestionHandle;
  let approval: { id: string; token: string };

  // One daemon for the file (each start costs most of a second); a fresh question per test.
  beforeAll(async () => {
    fake = await startOpenAiServer();
    rig = await startPushRig(fake);
  });

  afterAll(async () => {
    await rig.close();
    await fake.close();
  });

  beforeEach(async () => {
    rig.push.received.length = 0;
    handle = rig.app.app.approvals.questions.ask({
      callId: 'call-1', tool: 'shell', channel: 'console', chatId: 'owner', userId: 'owner', conversationId: 'c1',
      text: `Run shell: rm -rf build (key ${fake.apiKey})`, taint: [], timeoutMs: 60_000,
    });
    // The push for this question (one for an earlier test's question may still be arriving).
    const mine = () => rig.push.received.map((push) => JSON.parse(push.text) as { approval?: { id: string; token: string } }).find((payload) => payload.approval?.id === handle.question.id);
    const deadline = Date.now() + 5000;
    while (!mine() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    approval = mine()?.approval ?? { id: '', token: '' };
  });

  afterEach(() => {
    handle.settle('stopped');
  });

  function answer(fields: Record<string, string>, origin = rig.client.base): Promise<Response> {
    // As the service worker sends it: no cookie, same origin.
    return fetch(`${rig.client.base}/console/push/answer`, { method: 'POST', headers: { Origin: origin }, body: new URLSearchParams(fields) });
  }

  it('pushes the question with high urgency, its secrets redacted, and a token for that question', async () => {
    const push = rig.push.received.find((received) => received.text.includes(handle.question.id));
    expect(push?.urgency).toBe('high');
    expect(push?.text).not.toContain(fake.apiKey);
    expect(approval.id).toBe(handle.question.id);
    expect(approval.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('approves with the token, without a session cookie', async () => {
    const response = await answer({ question: approval.id, token: approval.token, answer: 'approve' });
    expect(response.status).toBe(200);
    expect(await handle.settled).toMatchObject({ answer: 'approve', by: 'the owner', surface: 'a notification' });
  });

  it('refuses the same token a second time', async () => {
    expect((await answer({ question: approval.id, token: approval.token, answer: 'deny' })).status).toBe(200);
    const replay = await answer({ question: approval.id, token: approval.token, answer: 'approve' });
    expect(replay.status).toBe(403);
    expect((await handle.settled).answer).toBe('deny');
  });

  it('refuses an answer without the token or with another one, and the question stays open', async () => {
    expect((await answer({ question: approval.id, answer: 'approve' })).status).toBe(403);
    expect((await answer({ question: approval.id, token: 'A'.repeat(43), answer: 'approve' })).status).toBe(403);
    expect(rig.app.app.approvals.questions.get(approval.id)).toBeDefined();
  });

  it('refuses the token for another question', async () => {
    const other = rig.app.app.approvals.questions.ask({
      callId: 'call-2', tool: 'shell', channel: 'console', chatId: 'owner', userId: 'owner', conversationId: 'c1', text: 'Run shell: ls', taint: [], timeoutMs: 60_000,
    });
    expect((await answer({ question: other.question.id, token: approval.token, answer: 'approve' })).status).toBe(403);
    other.settle('stopped');
  });

  it('refuses a post from another site', async () => {
    const response = await answer({ question: approval.id, token: approval.token, answer: 'approve' }, 'https://evil.example');
    expect(response.status).toBe(403);
    expect(rig.app.app.approvals.questions.get(approval.id)).toBeDefined();
  });

  it('refuses a token once its question has ended', async () => {
    handle.settle('timeout');
    expect((await answer({ question: approval.id, token: approval.token, answer: 'approve' })).status).toBe(403);
  });
});
