import nodemailer from 'nodemailer';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Daemon as App } from '../../../src/daemon.js';
import { startOpenAiServer, type FakeOpenAI } from '../../fakes/openai-server.js';
import { makeTestApp } from '../../helpers/app.js';
import { describeMail } from '../../helpers/mail.js';
import { startMailServer, type MailServer } from '../../helpers/mail-server.js';
import { callEmail, emailConfig, unique, waitForMail } from './fixtures.js';

// Real-world-shaped headers, written here after the cases other projects keep in their test corpora (RFC 5322's
// appendix A examples, bounces, mailing-list and "undisclosed recipients" mail, old clients' dates), delivered over
// SMTP through the real Postfix into the real Dovecot, then listed and read through the email tool.

interface Case { label: string; headers: string[]; listedFrom: string | RegExp; listedDate: string | RegExp }

const CASES: Case[] = [
  { label: 'name without address', headers: ['From: Joe Bloggs'], listedFrom: 'Joe Bloggs (no address)', listedDate: '2026-03-02 09:15' },
  { label: 'empty angle address', headers: ['From: "Joe Bloggs" <>'], listedFrom: 'Joe Bloggs (no address)', listedDate: '2026-03-02 09:15' },
  { label: 'empty group', headers: ['From: undisclosed-recipients:;'], listedFrom: /^(undisclosed-recipients( \(no address\))?|\(no sender\))$/, listedDate: '2026-03-02 09:15' },
  { label: 'encoded name', headers: ['From: =?ISO-8859-1?Q?Andr=E9?= Pirard <PIRARD@vm1.ulg.ac.be>'], listedFrom: 'André Pirard <PIRARD@vm1.ulg.ac.be>', listedDate: '2026-03-02 09:15' },
  { label: 'two senders', headers: ['From: Mary Smith <mary@x.test>, jdoe@example.org'], listedFrom: 'Mary Smith <mary@x.test>, jdoe@example.org', listedDate: '2026-03-02 09:15' },
  { label: 'comments in address', headers: ['From: Pete(A nice \\) chap) <pete(his account)@silly.test(his host)>'], listedFrom: /^Pete <pete@silly\.test>$/, listedDate: '2026-03-02 09:15' },
  { label: 'no date', headers: ['From: Alice <alice@familiar.test>'], listedFrom: 'Alice <alice@familiar.test>', listedDate: /^no date, received \d{4}-\d\d-\d\d \d\d:\d\d$/ },
  { label: 'garbage date', headers: ['From: Alice <alice@familiar.test>', 'Date: sometime next week'], listedFrom: 'Alice <alice@familiar.test>', listedDate: /^unreadable date "sometime next week", received \d{4}-/ },
  { label: 'obsolete date', headers: ['From: Alice <alice@familiar.test>', 'Date: 21 Nov 97 09:55:06 GMT'], listedFrom: 'Alice <alice@familiar.test>', listedDate: '1997-11-21 09:55' },
  { label: 'date with comment', headers: ['From: Alice <alice@familiar.test>', 'Date: Fri, 21 Nov 1997 09:55:06 -0600 (MDT)'], listedFrom: 'Alice <alice@familiar.test>', listedDate: '1997-11-21 15:55' },
];

function raw(subject: string, headers: string[]): string {
  const hasDate = headers.some((header) => header.startsWith('Date:')) || /no date/.test(subject);
  return [
    ...headers,
    'To: Me Myself <me@familiar.test>',
    `Subject: ${subject}`,
    ...(hasDate ? [] : ['Date: Mon, 02 Mar 2026 09:15:00 +0000']),
    `Message-ID: <${unique('rw')}@familiar.test>`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    `Body of ${subject}.`,
    '',
  ].join('\r\n');
}

describeMail('email listings of real-world-shaped mail, through real Postfix and Dovecot', () => {
  let server: MailServer;
  let fake: FakeOpenAI;
  let app: App;
  const subjects = new Map<string, string>();

  beforeAll(async () => {
    server = await startMailServer();
    fake = await startOpenAiServer();
    ({ app } = await makeTestApp(fake, { tools: { email: emailConfig(server) }, timezone: 'UTC' }));
    const { alice } = server.users;
    const transport = nodemailer.createTransport({ host: server.host, port: server.smtpPort, secure: false, auth: { user: alice.user, pass: alice.password }, tls: { ca: server.ca } });
    try {
      for (const entry of CASES) {
        const subject = unique(entry.label);
        subjects.set(entry.label, subject);
        await transport.sendMail({ envelope: { from: alice.address, to: [server.users.me.address] }, raw: raw(subject, entry.headers) });
      }
    } finally {
      transport.close();
    }
    for (const subject of subjects.values()) await waitForMail(server, 'me', subject);
  }, 60_000);

  afterAll(async () => {
    await app?.close(0);
    await fake?.close();
    await server?.stop();
  });

  const listing = async (): Promise<string[]> => {
    const outcome = await callEmail(app, { action: 'list', limit: 50 });
    expect(outcome.result.success, outcome.result.output).toBe(true);
    return outcome.result.output.split('\n').filter((line) => line.startsWith('uid '));
  };

  it('never shows a server placeholder for a missing or unreadable address', async () => {
    const lines = await listing();
    expect(lines.length).toBeGreaterThanOrEqual(CASES.length);
    for (const line of lines) expect(line).not.toMatch(/MISSING_|INVALID_ADDRESS|SYNTAX-ERROR|MISSING-HOST/i);
  });

  for (const entry of CASES) {
    it(`lists "${entry.label}" with the sender and date the message gave`, async () => {
      const subject = subjects.get(entry.label) ?? '';
      const line = (await listing()).find((candidate) => candidate.includes(` · ${subject} · `));
      expect(line, `no listing line for ${subject}`).toBeDefined();
      const [, date = '', from = ''] = /^uid \d+ · (.*?) · (.*?) · /.exec(line ?? '') ?? [];
      if (typeof entry.listedFrom === 'string') expect(from).toBe(entry.listedFrom);
      else expect(from).toMatch(entry.listedFrom);
      if (typeof entry.listedDate === 'string') expect(date).toBe(entry.listedDate);
      else expect(date).toMatch(entry.listedDate);
    });
  }

  it('reads a message whose Date cannot be read without giving it the time of reading', async () => {
    const list = await listing();
    const uid = Number(/^uid (\d+)/.exec(list.find((line) => line.includes(subjects.get('garbage date') ?? '?')) ?? '')?.[1]);
    const read = (await callEmail(app, { action: 'read', uid })).result.output;
    expect(read).toMatch(/Date: unreadable date "sometime next week", received \d{4}-/);
    const noDate = Number(/^uid (\d+)/.exec(list.find((line) => line.includes(subjects.get('no date') ?? '?')) ?? '')?.[1]);
    expect((await callEmail(app, { action: 'read', uid: noDate })).result.output).toMatch(/Date: no date, received /);
    const nameOnly = Number(/^uid (\d+)/.exec(list.find((line) => line.includes(subjects.get('name without address') ?? '?')) ?? '')?.[1]);
    expect((await callEmail(app, { action: 'read', uid: nameOnly })).result.output).toContain('From: Joe Bloggs (no address)');
  });
});
