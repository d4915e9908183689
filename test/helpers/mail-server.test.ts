import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImapFlow } from 'imapflow';
import { simpleParser } from 'mailparser';
import nodemailer from 'nodemailer';
import { appendMessage, descendantPids, imapClient, startMailServer } from './mail-server.js';
import type { MailServer } from './mail-server.js';

let server: MailServer;

beforeAll(async () => {
  const t0 = Date.now();
  server = await startMailServer();
  console.log(`mail server started in ${Date.now() - t0} ms (imap ${server.imapPort}, imaps ${server.imapsPort}, smtp ${server.smtpPort})`);
});

afterAll(async () => {
  await server?.stop();
});

async function findBySubject(client: ImapFlow, subject: string, timeoutMs = 5_000): Promise<number | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const lock = await client.getMailboxLock('INBOX');
    try {
      // A mailbox still selected from the last round hears of new mail only when a command runs: one NOOP, as the
      // daemon's own session does (a SEARCH alone may not sync it in).
      await client.noop();
      const uids = await client.search({ subject }, { uid: true });
      if (uids && uids.length > 0) return uids[0];
    } finally {
      lock.release();
    }
    if (Date.now() > deadline) return undefined;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('private mail server', () => {
  it('delivers SMTP (STARTTLS + AUTH) from me to alice, found over IMAP', async () => {
    const { me, alice } = server.users;
    const transport = nodemailer.createTransport({
      host: server.host,
      port: server.smtpPort,
      secure: false,
      requireTLS: true,
      tls: { ca: server.ca },
      auth: { user: me.user, pass: me.password },
    });
    const subject = `hello alice ${Date.now()}`;
    try {
      const info = await transport.sendMail({
        from: me.address,
        to: alice.address,
        subject,
        text: 'Body text.\n',
      });
      expect(info.accepted).toEqual([alice.address]);
    } finally {
      transport.close();
    }

    const client = imapClient(server, 'alice');
    await client.connect();
    try {
      expect(client.secureConnection).toBe(true); // STARTTLS was used
      const uid = await findBySubject(client, subject);
      expect(uid, server.logTail()).toBeTypeOf('number');
      const lock = await client.getMailboxLock('INBOX');
      try {
        const msg = await client.fetchOne(String(uid), { source: true }, { uid: true });
        expect(msg).toBeTruthy();
        const parsed = await simpleParser((msg as { source: Buffer }).source);
        expect(parsed.subject).toBe(subject);
        expect(parsed.from?.value[0]?.address).toBe(me.address);
        expect(parsed.text?.trim()).toBe('Body text.');
      } finally {
        lock.release();
      }
    } finally {
      await client.logout();
    }
  });

  it('rejects unauthenticated SMTP relay', async () => {
    const transport = nodemailer.createTransport({
      host: server.host,
      port: server.smtpPort,
      secure: false,
      tls: { ca: server.ca },
    });
    try {
      await expect(
        transport.sendMail({ from: 'x@example.com', to: server.users.alice.address, subject: 'nope', text: 'x' }),
      ).rejects.toThrow(/reject|denied|554|5\.7/i);
    } finally {
      transport.close();
    }
  });

  it('logs in over implicit TLS (imaps), with the bare local part too', async () => {
    const client = imapClient(server, 'me', { implicitTls: true });
    await client.connect();
    expect(client.authenticated).toBeTruthy();
    await client.logout();

    const bare = new ImapFlow({
      host: server.host,
      port: server.imapsPort,
      secure: true,
      tls: { ca: server.ca },
      auth: { user: 'me', pass: server.users.me.password },
      logger: false,
    });
    await bare.connect();
    await bare.logout();
  });

  it('rejects a wrong password quickly', async () => {
    for (let i = 0; i < 3; i++) {
      const client = new ImapFlow({
        host: server.host,
        port: server.imapPort,
        secure: false,
        tls: { ca: server.ca },
        auth: { user: server.users.me.user, pass: 'wrong-password' },
        logger: false,
      });
      try {
        const err: unknown = await client.connect().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(Error);
        const e = err as Error & { authenticationFailed?: boolean; serverResponseCode?: string };
        expect(e.authenticationFailed).toBe(true);
        expect(e.serverResponseCode).toBe('AUTHENTICATIONFAILED');
      } finally {
        client.close();
      }
    }
  });

  it('appendMessage places a non-ASCII message that mailparser decodes', async () => {
    const subject = 'Grüße aus Köln — 東京 ✓';
    const encoded = `=?UTF-8?B?${Buffer.from(subject, 'utf8').toString('base64')}?=`;
    const raw = [
      `From: =?UTF-8?B?${Buffer.from('Zoë', 'utf8').toString('base64')}?= <zoe@example.com>`,
      `To: ${server.users.me.address}`,
      `Subject: ${encoded}`,
      'Date: Mon, 02 Nov 2026 10:00:00 +0000',
      'Message-ID: <append-test-1@familiar.test>',
      'MIME-Version: 1.0',
      'Content-Type: text/html; charset=utf-8',
      'Content-Transfer-Encoding: 8bit',
      '',
      '<p>Schöne Grüße</p>',
      '',
    ].join('\r\n');
    const uid = await appendMessage(server, 'me', Buffer.from(raw, 'utf8'), ['\\Seen']);
    expect(uid).toBeTypeOf('number');

    const client = imapClient(server, 'me');
    await client.connect();
    try {
      const lock = await client.getMailboxLock('INBOX');
      try {
        const msg = await client.fetchOne(String(uid), { source: true, flags: true }, { uid: true });
        expect(msg).toBeTruthy();
        const m = msg as { source: Buffer; flags: Set<string> };
        expect(m.flags.has('\\Seen')).toBe(true);
        const parsed = await simpleParser(m.source);
        expect(parsed.subject).toBe(subject);
        expect(parsed.from?.value[0]?.name).toBe('Zoë');
        expect(parsed.html).toContain('Schöne Grüße');
      } finally {
        lock.release();
      }
    } finally {
      await client.logout();
    }
  });

  it('runs two instances side by side, and stop() leaves no process behind', async () => {
    const second = await startMailServer();
    expect(second.dir).not.toBe(server.dir);
    expect(second.imapPort).not.toBe(server.imapPort);
    const masters = [
      fs.readFileSync(path.join(second.dir, 'dovecot-run', 'master.pid'), 'utf8'),
      fs.readFileSync(path.join(second.dir, 'postfix-queue', 'pid', 'master.pid'), 'utf8'),
    ].map((s) => Number(s.trim()));
    expect(masters.every((p) => p > 0)).toBe(true);

    // Exercise it so it has IMAP children too.
    const client = imapClient(second, 'alice', { implicitTls: true });
    await client.connect();
    const pids = [...masters, ...descendantPids(masters)];
    expect(pids.length).toBeGreaterThan(4);

    await second.stop();
    await second.stop(); // idempotent
    client.close();
    const alive = pids.filter((pid) => {
      try {
        process.kill(pid, 0);
        return !/\) [ZX] /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
      } catch {
        return false;
      }
    });
    expect(alive).toEqual([]);
    expect(fs.existsSync(second.dir)).toBe(false);

    // The first instance is unaffected.
    const again = imapClient(server, 'me');
    await again.connect();
    await again.logout();
  });
});
