import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Daemon } from '../../../src/daemon.js';
import { TriggerInbox } from '../../../src/triggers/inbox.js';
import { startOpenAiServer, type FakeOpenAI } from '../../fakes/openai-server.js';
import { makeTestApp, type TestApp } from '../../helpers/app.js';
import { describeMail } from '../../helpers/mail.js';
import { appendMessage, startMailServer, type MailServer } from '../../helpers/mail-server.js';
import { emailConfig, rawMessage, unique } from './fixtures.js';

// One Dovecot and one in-process daemon (stopped and made again on the same folder for the downtime test).
describeMail('new mail as triggers (IMAP IDLE)', () => {
  let server: MailServer;
  let fake: FakeOpenAI;
  let test: TestApp;
  let app: Daemon;

  const mailTriggers = () => new TriggerInbox(app.db).recent(100).filter((item) => item.source === 'mail');
  const jobRuns = () => app.scheduler.runs('on-mail', 100).filter((run) => run.status !== 'running');
  const deliver = (subject: string, messageId = `<${unique('w')}@familiar.test>`) => appendMessage(server, 'me', rawMessage({ subject, messageId }));

  beforeAll(async () => {
    [server, fake] = await Promise.all([startMailServer(), startOpenAiServer()]);
    fake.handle(() => ({ content: 'noted' }));
    // Mail already there before the first start is not news.
    await deliver('old news');
    test = await makeTestApp(fake, {
      tools: { email: emailConfig(server, { allow_send: false }) },
      triggers: { mail: { watch: true } },
      scheduler: { jobs: [{ id: 'on-mail', trigger: { source: 'mail' }, prompt: 'Tell me about this mail.' }] },
    });
    app = test.app;
    await app.start();
  });

  afterAll(async () => {
    await app?.close(0);
    await fake?.close();
    await server?.stop();
  });

  it('turns one delivered mail into exactly one trigger and one run of the mail job, with its sender\'s words as outside content', async () => {
    await expect.poll(() => test.logs.some((line) => line.includes('watching for new mail')), { timeout: 10_000 }).toBe(true);
    const messageId = `<${unique('first')}@familiar.test>`;
    await deliver('Quarterly invoice', messageId);
    await expect.poll(() => jobRuns().length, { timeout: 15_000 }).toBe(1);
    expect(mailTriggers().map((item) => item.id)).toEqual([`mail:${messageId}`]);
    expect(mailTriggers()[0]?.summary).toContain('Quarterly invoice');
    expect(JSON.stringify(fake.requests.at(-1)?.body.messages)).toContain('comes from outside');
  });

  it('catches up by UID on mail that arrived while the daemon was down, each message once', async () => {
    await app.close(0);
    await deliver('while down 1');
    await deliver('while down 2');
    app = await test.restart();
    await app.start();
    await expect.poll(() => jobRuns().length, { timeout: 15_000 }).toBe(3);
    const subjects = mailTriggers().map((item) => item.summary);
    expect(subjects.filter((summary) => summary.includes('while down'))).toHaveLength(2);
    expect(subjects.some((summary) => summary.includes('old news'))).toBe(false);
  });

  it('hands nothing on twice when the daemon starts again with no new mail', async () => {
    await app.close(0);
    app = await test.restart();
    await app.start();
    await expect.poll(() => test.logs.filter((line) => line.includes('watching for new mail')).length, { timeout: 10_000 }).toBe(3);
    expect(mailTriggers()).toHaveLength(3);
    expect(jobRuns()).toHaveLength(3);
  });

  it('has doctor say the server offers IMAP IDLE', async () => {
    const lines = await app.parts.find((part) => part.name === 'email')?.doctor?.() ?? [];
    expect(lines.find((line) => line.label === 'email: watching INBOX for new mail')).toMatchObject({ status: 'ok', detail: 'the server offers IMAP IDLE' });
  });
});
