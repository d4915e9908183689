import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Daemon as App } from '../../../src/daemon.js';
import { startOpenAiServer, type FakeOpenAI } from '../../fakes/openai-server.js';
import { makeTestApp } from '../../helpers/app.js';
import { describeMail } from '../../helpers/mail.js';
import { appendMessage, startMailServer, type MailServer } from '../../helpers/mail-server.js';
import { emailConfig, origin, rawMessage, unique } from './fixtures.js';

describeMail('email end to end through the agent', () => {
  let server: MailServer;
  let fake: FakeOpenAI;
  let app: App;

  beforeAll(async () => {
    server = await startMailServer();
    fake = await startOpenAiServer();
    ({ app } = await makeTestApp(fake, { tools: { email: emailConfig(server, { allow_send: false }) } }));
  });

  afterAll(async () => {
    await app?.close(0);
    await fake?.close();
    await server?.stop();
  });

  it('"any mail from alice?" makes the model search by sender, and the answer carries the subject', async () => {
    const subject = unique('Tickets for Saturday');
    await appendMessage(server, 'me', rawMessage({ from: 'Alice Example <alice@familiar.test>', subject, text: 'I got two tickets.' }));
    await appendMessage(server, 'me', rawMessage({ from: 'Bob <bob@example.com>', subject: unique('Bob news'), text: 'x' }));

    // The fake model asks for the search, then answers from the tool message it was given.
    fake.handle((request) => {
      const toolMessage = request.body.messages.find((message) => message.role === 'tool');
      if (!toolMessage) return { toolCalls: [{ name: 'email', arguments: { action: 'search', from: 'alice' } }] };
      const text = typeof toolMessage.content === 'string' ? toolMessage.content : '';
      const found = /· Alice Example <alice@familiar\.test> · (.+) · (?:unread|read)/.exec(text);
      return { content: found ? `Yes, one from Alice: "${found[1]}".` : 'No mail from Alice.' };
    });

    const result = await app.turns.start({ text: 'any mail from alice?', origin, source: 'cli' });
    expect(result.status).toBe('ok');
    expect(result.text).toBe(`Yes, one from Alice: "${subject}".`);

    const first = fake.requests[0]?.body;
    expect(first?.tools?.some((tool) => tool.function.name === 'email')).toBe(true);
    const call = fake.requests[1]?.body.messages.find((message) => message.role === 'assistant')?.tool_calls?.[0];
    expect(call?.function.name).toBe('email');
    expect(JSON.parse(call?.function.arguments ?? '{}')).toEqual({ action: 'search', from: 'alice' });
    const toolMessage = fake.requests[1]?.body.messages.find((message) => message.role === 'tool');
    expect(String(toolMessage?.content)).toContain('<<<EXTERNAL_CONTENT source="email:me@familiar.test/INBOX">>>');
    expect(String(toolMessage?.content)).not.toContain('Bob news');
    expect(result.externalSources).toEqual(['email:me@familiar.test/INBOX']);
  });
});
