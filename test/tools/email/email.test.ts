import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Daemon as App } from '../../../src/daemon.js';
import { startOpenAiServer, type FakeOpenAI } from '../../fakes/openai-server.js';
import { makeTestApp } from '../../helpers/app.js';
import { describeMail } from '../../helpers/mail.js';
import { appendMessage, startMailServer, type MailServer } from '../../helpers/mail-server.js';
import { callEmail, emailConfig, flagsOf, rawMessage, unique, waitForMail } from './fixtures.js';

describeMail('email tool against real Dovecot + Postfix', () => {
  let server: MailServer;
  let fake: FakeOpenAI;
  let app: App;

  beforeAll(async () => {
    server = await startMailServer();
    fake = await startOpenAiServer();
    ({ app } = await makeTestApp(fake, { tools: { email: emailConfig(server) } }));
  });

  afterAll(async () => {
    await app?.close(0);
    await fake?.close();
    await server?.stop();
  });

  it('sends a message with a workspace attachment that arrives in the recipient\'s INBOX', async () => {
    const workspace = path.join(app.config.data_dir, 'workspaces', 'email-test');
    mkdirSync(path.join(workspace, 'out'), { recursive: true });
    writeFileSync(path.join(workspace, 'out', 'report.txt'), 'quarterly numbers\n');
    const subject = unique('Report for Alice');
    const outcome = await callEmail(app, {
      action: 'send', to: 'Alice <alice@familiar.test>', subject, body: 'Hello Alice,\nthe report is attached.\n', attachments: ['out/report.txt'],
    });
    expect(outcome.result.success, outcome.result.output).toBe(true);
    expect(outcome.result.output).toContain('alice@familiar.test');
    expect(outcome.result.output).toContain('report.txt');
    expect(outcome.decision).toBe('approved by test'); // send is high-risk: the approval gate was asked

    const { parsed } = await waitForMail(server, 'alice', subject);
    expect(parsed.subject).toBe(subject);
    expect(parsed.from?.value[0]?.address).toBe('me@familiar.test');
    expect(parsed.from?.value[0]?.name).toBe('Me Myself');
    expect(parsed.text).toContain('the report is attached.');
    expect(parsed.attachments.map((file) => file.filename)).toEqual(['report.txt']);
    expect(parsed.attachments[0]?.content.toString('utf8')).toBe('quarterly numbers\n');
  });

  it('lists the newest messages with uid, sender, subject and unread status, wrapped as outside content', async () => {
    const subject = unique('Lunch on Friday?');
    const uid = await appendMessage(server, 'me', rawMessage({ subject, text: 'Shall we?' }));
    const outcome = await callEmail(app, { action: 'list', limit: 5 });
    expect(outcome.result.success, outcome.result.output).toBe(true);
    const output = outcome.result.output;
    const line = output.split('\n').find((entry) => entry.startsWith(`uid ${uid} · `));
    expect(line).toMatch(/^uid \d+ · \d{4}-\d{2}-\d{2} \d{2}:\d{2} · Alice Example <alice@familiar.test> · .+ · unread$/);
    expect(line).toContain(` · ${subject} · `);
    expect(output).toContain('<<<EXTERNAL_CONTENT source="email:me@familiar.test/INBOX">>>');
    expect(output).toContain('<<<END_EXTERNAL_CONTENT>>>');
    expect(outcome.result.externalSource).toBe('email:me@familiar.test/INBOX');
  });

  it('lists only unread messages when asked', async () => {
    const seen = unique('Already read');
    const unseen = unique('Not yet read');
    await appendMessage(server, 'me', rawMessage({ subject: seen, text: 'x' }), ['\\Seen']);
    await appendMessage(server, 'me', rawMessage({ subject: unseen, text: 'y' }));
    const output = (await callEmail(app, { action: 'list', unread_only: true, limit: 50 })).result.output;
    expect(output).toContain(unseen);
    expect(output).not.toContain(seen);
  });

  it('searches by sender, subject, body text and date on the server', async () => {
    const token = unique('budget');
    await appendMessage(server, 'me', rawMessage({ from: 'Bob Builder <bob@example.com>', subject: `Plans ${token}`, text: 'nothing about money' }));
    await appendMessage(server, 'me', rawMessage({ subject: `Numbers ${token}`, text: 'the secret word is pineapple' }));

    const byFrom = (await callEmail(app, { action: 'search', from: 'bob@example.com', subject: token })).result.output;
    expect(byFrom).toContain(`Plans ${token}`);
    expect(byFrom).not.toContain(`Numbers ${token}`);

    const byText = (await callEmail(app, { action: 'search', text: 'pineapple', subject: token })).result.output;
    expect(byText).toContain(`Numbers ${token}`);
    expect(byText).not.toContain(`Plans ${token}`);

    const future = (await callEmail(app, { action: 'search', subject: token, since: '2999-01-01' })).result;
    expect(future.success).toBe(true);
    expect(future.output).toBe('No matching messages in INBOX.');

    const badDate = (await callEmail(app, { action: 'search', since: 'last tuesday-ish' })).result;
    expect(badDate.success).toBe(false);
    expect(badDate.output).toBe('since and before must be dates like 2026-11-02.');
  });

  it('finds and decodes a non-ASCII subject', async () => {
    const token = unique('x');
    const subject = `Grüße aus Köln — 東京 ✓ ${token}`;
    const uid = await appendMessage(server, 'me', rawMessage({ from: '=?UTF-8?B?Wm/Dqw==?= <zoe@example.com>', subject, text: 'Schöne Grüße' }));
    const found = (await callEmail(app, { action: 'search', subject: 'Köln' })).result.output;
    expect(found).toContain(subject);
    expect(found).toContain('Zoë <zoe@example.com>');
    const read = (await callEmail(app, { action: 'read', uid })).result.output;
    expect(read).toContain(`Subject: ${subject}`);
    expect(read).toContain('Schöne Grüße');
  });

  it('reads a plain message without marking it read, and marks it only with mark_seen', async () => {
    const subject = unique('Plain hello');
    const uid = await appendMessage(server, 'me', rawMessage({ subject, cc: 'Carol <carol@example.com>', text: 'Line one.\nLine two.' }));
    expect(uid).toBeTypeOf('number');
    const outcome = await callEmail(app, { action: 'read', uid });
    expect(outcome.result.success, outcome.result.output).toBe(true);
    const output = outcome.result.output;
    expect(output).toContain(`Message uid ${uid} in INBOX (unread; left unread)`);
    expect(output).toContain('From: Alice Example <alice@familiar.test>');
    expect(output).toContain('To: Me Myself <me@familiar.test>');
    expect(output).toContain('Cc: Carol <carol@example.com>');
    expect(output).toContain(`Subject: ${subject}`);
    expect(output).toContain('Line one.\nLine two.');
    expect(outcome.result.externalSource).toBe('email:me@familiar.test/INBOX');
    expect((await flagsOf(server, 'me', uid as number)).has('\\Seen')).toBe(false);

    const marked = await callEmail(app, { action: 'read', uid, mark_seen: true });
    expect(marked.result.output).toContain('now marked as read');
    expect((await flagsOf(server, 'me', uid as number)).has('\\Seen')).toBe(true);
  });

  it('reads an HTML-only message as text, links kept and tags gone', async () => {
    const subject = unique('Newsletter');
    const html = '<html><head><style>p{color:red}</style></head><body><h1>Big news</h1><p>Read <a href="https://example.com/post">the post</a> today.</p><img src="https://example.com/track.gif"></body></html>';
    const uid = await appendMessage(server, 'me', rawMessage({ subject, html }));
    const output = (await callEmail(app, { action: 'read', uid })).result.output;
    expect(output).toContain('[converted from HTML]');
    expect(output).toMatch(/BIG NEWS|Big news/);
    expect(output).toContain('the post [https://example.com/post]');
    expect(output).not.toMatch(/<p>|<a |<img|color:red|track\.gif/);
  });

  it('lists attachment names, types and sizes when reading', async () => {
    const subject = unique('Invoice');
    const content = Buffer.alloc(3000, 7);
    const uid = await appendMessage(server, 'me', rawMessage({ subject, text: 'See attached.', attachment: { filename: 'invoice-42.pdf', contentType: 'application/pdf', content } }));
    const output = (await callEmail(app, { action: 'read', uid })).result.output;
    expect(output).toContain('Attachments (1): invoice-42.pdf (application/pdf, 2.9 KB)');
    expect(output).toContain('See attached.');
  });

  it('replies in the thread: Re: subject, In-Reply-To and References, the original quoted, marked answered', async () => {
    const subject = unique('Dinner plans');
    const messageId = `<${unique('orig')}@familiar.test>`;
    const earlier = `<${unique('earlier')}@familiar.test>`;
    const uid = await appendMessage(server, 'me', rawMessage({
      from: 'Alice Example <alice@familiar.test>', subject, messageId, references: earlier, text: 'Are you free on Saturday?\nBring wine.',
    }));
    const outcome = await callEmail(app, { action: 'reply', uid, body: 'Yes, Saturday works.' });
    expect(outcome.result.success, outcome.result.output).toBe(true);
    expect(outcome.decision).toBe('approved by test');

    const { parsed } = await waitForMail(server, 'alice', `Re: ${subject}`);
    expect(parsed.subject).toBe(`Re: ${subject}`);
    expect(parsed.inReplyTo).toBe(messageId);
    expect(parsed.references).toEqual([earlier, messageId]);
    expect(parsed.to && !Array.isArray(parsed.to) ? parsed.to.value.map((entry) => entry.address) : []).toEqual(['alice@familiar.test']);
    expect(parsed.text).toContain('Yes, Saturday works.');
    expect(parsed.text).toMatch(/wrote:\n> Are you free on Saturday\?\n> Bring wine\./);
    expect((await flagsOf(server, 'me', uid as number)).has('\\Answered')).toBe(true);
  });

  it('replies to all without writing to itself, and keeps an existing Re: prefix', async () => {
    const subject = `Re: ${unique('Team sync')}`;
    const uid = await appendMessage(server, 'me', rawMessage({
      from: 'Alice Example <alice@familiar.test>', to: 'me@familiar.test, Bob <bob@familiar.test>', cc: 'Me Myself <ME@familiar.test>', subject, text: 'Agenda attached.',
    }));
    const outcome = await callEmail(app, { action: 'reply', uid, body: 'Thanks!', all: true });
    // bob@familiar.test has no mailbox: Postfix accepts it at submission and bounces later, so the send succeeds.
    expect(outcome.result.success, outcome.result.output).toBe(true);
    const { parsed } = await waitForMail(server, 'alice', subject);
    expect(parsed.subject).toBe(subject);
    const cc = parsed.cc && !Array.isArray(parsed.cc) ? parsed.cc.value.map((entry) => entry.address) : [];
    expect(cc).toEqual(['bob@familiar.test']);
  });

  it('says which folders exist when asked for a missing one', async () => {
    const outcome = await callEmail(app, { action: 'list', folder: 'Receipts' });
    expect(outcome.result.success).toBe(false);
    expect(outcome.result.output).toMatch(/Folder "Receipts" does not exist\. Folders: .*INBOX.*Sent/);
  });

  it('answers a missing uid and misplaced fields with what to fix', async () => {
    const missing = await callEmail(app, { action: 'read', uid: 999_999 });
    expect(missing.result.success).toBe(false);
    expect(missing.result.output).toContain('No message with uid 999999 in INBOX');

    const wrongField = await callEmail(app, { action: 'list', subject: 'x' });
    expect(wrongField.result.success).toBe(false);
    expect(wrongField.result.output).toBe('list does not take subject; it takes folder, unread_only, limit.');

    const noUid = await callEmail(app, { action: 'read' });
    expect(noUid.result.output).toBe('read needs uid or message_id.');

    const badAction = await callEmail(app, { action: 'delete' });
    expect(badAction.result.output).toContain('must be one of "list", "read", "search", "send", "reply", "save_attachment"');
  });

  it('sends Markdown as plain text with an HTML alternative, and plain text alone as it is', async () => {
    const formatted = unique('Agenda');
    const body = 'Hi Alice,\n\n- **budget** review\n- see [the plan](https://example.org/plan)\n';
    expect((await callEmail(app, { action: 'send', to: 'alice@familiar.test', subject: formatted, body })).result.success).toBe(true);
    const { parsed } = await waitForMail(server, 'alice', formatted);
    expect(parsed.text).toContain('- **budget** review');
    expect(parsed.html).toContain('<strong>budget</strong>');
    expect(parsed.html).toContain('<a href="https://example.org/plan"');
    const plain = unique('Plain note');
    expect((await callEmail(app, { action: 'send', to: 'alice@familiar.test', subject: plain, body: 'Just words, <b>not</b> markup.' })).result.success).toBe(true);
    expect((await waitForMail(server, 'alice', plain)).parsed.html).toBe(false);
  });

  it('reads and replies to a message by its Message-ID', async () => {
    const subject = unique('Found by id');
    const messageId = `<${unique('byid')}@familiar.test>`;
    const uid = await appendMessage(server, 'me', rawMessage({ subject, messageId, text: 'Can you confirm?' }));
    const read = await callEmail(app, { action: 'read', message_id: messageId.slice(1, -1) });
    expect(read.result.output).toContain(`Message uid ${uid} in INBOX`);
    const replied = await callEmail(app, { action: 'reply', message_id: messageId, body: 'Confirmed.' });
    expect(replied.result.success, replied.result.output).toBe(true);
    expect((await waitForMail(server, 'alice', `Re: ${subject}`)).parsed.inReplyTo).toBe(messageId);
    const missing = await callEmail(app, { action: 'reply', message_id: '<gone@familiar.test>', body: 'x' });
    expect(missing.result.output).toMatch(/^Not sent: No message with Message-ID <gone@familiar.test> in INBOX/);
  });

  it('saves an attachment into the workspace uploads, asking which when there are several', async () => {
    const workspace = path.join(app.config.data_dir, 'workspaces', 'email-test');
    mkdirSync(workspace, { recursive: true });
    writeFileSync(path.join(workspace, 'a.txt'), 'first file\n');
    writeFileSync(path.join(workspace, 'b.csv'), 'x,y\n1,2\n');
    const subject = unique('Two files');
    expect((await callEmail(app, { action: 'send', to: 'me@familiar.test', subject, body: 'both', attachments: ['a.txt', 'b.csv'] })).result.success).toBe(true);
    const { uid } = await waitForMail(server, 'me', subject);
    const which = await callEmail(app, { action: 'save_attachment', uid });
    expect(which.result.output).toContain('has 2 attachments ("a.txt", "b.csv"); say which with "filename"');
    const saved = await callEmail(app, { action: 'save_attachment', uid, filename: 'B.CSV' });
    expect(saved.result.success, saved.result.output).toBe(true);
    const where = /as (uploads\/\S+) in the workspace/.exec(saved.result.output)?.[1] ?? '';
    expect(where).toMatch(/^uploads\/[a-z0-9]+-b\.csv$/);
    expect(readFileSync(path.join(workspace, where), 'utf8')).toBe('x,y\n1,2\n');
    expect((await callEmail(app, { action: 'save_attachment', uid, filename: 'c.pdf' })).result.output).toContain('has no attachment "c.pdf"; it has "a.txt", "b.csv"');
  });
});

describeMail('email tool with several accounts (tools.email.accounts)', () => {
  let server: MailServer;
  let fake: FakeOpenAI;
  let app: App;

  beforeAll(async () => {
    server = await startMailServer();
    fake = await startOpenAiServer();
    const { alice } = server.users;
    const family = emailConfig(server, {
      imap: { user: alice.user, password: alice.password }, smtp: { user: alice.user, password: alice.password, from: `Alice Example <${alice.address}>` },
    });
    ({ app } = await makeTestApp(fake, { tools: { email: { ...emailConfig(server), accounts: { family } } } }));
  });

  afterAll(async () => {
    await app?.close(0);
    await fake?.close();
    await server?.stop();
  });

  it('reads and sends from the account the call names, the first by default', async () => {
    const parameters = app.tools.get('email')?.tool.parameters as { properties: { account?: { enum: string[] } } };
    expect(parameters.properties.account?.enum).toEqual(['default', 'family']);
    expect(app.tools.get('email')?.tool.description).toContain('Account "family" (alice@familiar.test): send and reply deliver real mail');
    const subject = unique('For Alice only');
    await appendMessage(server, 'alice', rawMessage({ to: 'alice@familiar.test', subject, text: 'x' }));
    expect((await callEmail(app, { action: 'list', account: 'family', limit: 50 })).result.output).toContain(subject);
    expect((await callEmail(app, { action: 'list', limit: 50 })).result.output).not.toContain(subject);
    const sent = unique('From the family account');
    expect((await callEmail(app, { action: 'send', account: 'family', to: 'me@familiar.test', subject: sent, body: 'hello' })).result.success).toBe(true);
    expect((await waitForMail(server, 'me', sent)).parsed.from?.value[0]?.address).toBe('alice@familiar.test');
    expect((await callEmail(app, { action: 'list', account: 'work' })).result.output).toMatch(/account.*must be one of "default", "family"/);
  });

  it('refuses an account without credentials at start, naming its key', async () => {
    await expect(makeTestApp(fake, { tools: { email: { ...emailConfig(server), accounts: { work: { imap: { host: 'x' } } } } } }))
      .rejects.toThrow(/tools\.email\.accounts\.work: imap\.user, password are empty/);
  });
});
