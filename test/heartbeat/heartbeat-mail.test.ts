import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Daemon } from '../../src/daemon.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { describeMail } from '../helpers/mail.js';
import { appendMessage, startMailServer, type MailServer } from '../helpers/mail-server.js';
import { emailConfig, rawMessage, unique } from '../tools/email/fixtures.js';

const HALF_HOUR = 30 * 60_000;

describeMail('the heartbeat reading real mail', () => {
  let server: MailServer;
  let fake: FakeOpenAI;
  let test: TestApp;
  let app: Daemon;
  let clock = Date.UTC(2026, 10, 26, 7, 0);

  async function beats(count: number): Promise<string[]> {
    const kinds: string[] = [];
    for (let index = 0; index < count; index += 1) {
      clock += HALF_HOUR;
      kinds.push((await app.heartbeat.beat()).kind);
    }
    return kinds;
  }

  beforeAll(async () => {
    [server, fake] = await Promise.all([startMailServer(), startOpenAiServer()]);
    fake.handle(() => ({ content: '{"report": "Alice wrote about Saturday."}' }));
    test = await makeTestApp(fake, { tools: { email: emailConfig(server, { allow_send: false }) }, heartbeat: { every: '30m' } }, undefined, { now: () => new Date(clock) });
    app = test.app;
  });

  afterAll(async () => {
    await app?.close(0);
    await fake?.close();
    await server?.stop();
  });

  it('calls the model once for a new unread mail, not for mail already read, and never again for the same one', async () => {
    await appendMessage(server, 'me', rawMessage({ subject: unique('Old news'), text: 'read already' }), ['\\Seen']);
    expect(await beats(4)).toEqual(['idle', 'idle', 'idle', 'idle']);
    const subject = unique('Tickets for Saturday');
    await appendMessage(server, 'me', rawMessage({ subject, text: 'I got two tickets.' }));
    const kinds = await beats(24);
    expect(fake.requests).toHaveLength(1);
    expect(kinds.filter((kind) => kind === 'reported')).toHaveLength(1);
    // The sender's words reach the model as outside content.
    expect(JSON.stringify(fake.requests[0]?.body.messages)).toMatch(new RegExp(`EXTERNAL_CONTENT source=\\\\"email:me@familiar.test/INBOX\\\\"[^]*${subject}`));
  });

  it('does not report the same unread mail again after a restart', async () => {
    const again = await test.restart();
    try {
      expect((await again.heartbeat.beat()).kind).toBe('idle');
      expect(fake.requests).toHaveLength(1);
    } finally {
      await again.close(0);
    }
  });
});
