import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ImapSession } from '../../../src/tools/email/imap.js';
import { listMessages } from '../../../src/tools/email/mailbox.js';
import { captureLogger } from '../../helpers/app.js';
import { describeMail, openConnectionsTo } from '../../helpers/mail.js';
import { appendMessage, descendantPids, startMailServer, type MailServer } from '../../helpers/mail-server.js';
import { rawMessage, unique } from './fixtures.js';

/** Kills the Dovecot processes serving IMAP sessions (not the listeners): the server side of a dropped connection. */
function killImapSessions(server: MailServer): number {
  const master = Number(fs.readFileSync(path.join(server.dir, 'dovecot-run', 'master.pid'), 'utf8').trim());
  let killed = 0;
  for (const pid of descendantPids([master])) {
    let name = '';
    try {
      name = fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      continue;
    }
    if (name === 'imap') {
      process.kill(pid, 'SIGKILL');
      killed += 1;
    }
  }
  return killed;
}

describeMail('one IMAP connection, reused and replaced', () => {
  let server: MailServer;
  const logs: string[] = [];

  beforeAll(async () => {
    server = await startMailServer();
  });

  afterAll(async () => {
    await server?.stop();
  });

  const newSession = () => new ImapSession({
    endpoint: { host: server.host, port: server.imapPort, secure: false, user: server.users.me.user, password: server.users.me.password },
    ca: server.ca,
    log: captureLogger(logs, []),
  });

  it('logs in once for many calls, also when they run at the same time', async () => {
    const session = newSession();
    try {
      await listMessages(session, 'INBOX', { unreadOnly: false, limit: 5 });
      await listMessages(session, 'INBOX', { unreadOnly: true, limit: 5 });
      await Promise.all([1, 2, 3].map(() => listMessages(session, 'INBOX', { unreadOnly: false, limit: 5 })));
      expect(session.logins).toBe(1);
      expect(openConnectionsTo(server.imapPort)).toBe(1);
    } finally {
      await session.close();
    }
  });

  it('sees mail that arrived after its mailbox was selected', async () => {
    const session = newSession();
    try {
      const before = await listMessages(session, 'INBOX', { unreadOnly: false, limit: 50 });
      const subject = unique('arrives later');
      const uid = await appendMessage(server, 'me', rawMessage({ subject, text: 'x' }));
      const after = await listMessages(session, 'INBOX', { unreadOnly: false, limit: 50 });
      expect(after.total).toBe(before.total + 1);
      expect(after.messages[0]).toMatchObject({ uid, subject });
    } finally {
      await session.close();
    }
  });

  it('reconnects when the server drops the connection', async () => {
    const session = newSession();
    try {
      await listMessages(session, 'INBOX', { unreadOnly: false, limit: 5 });
      expect(killImapSessions(server)).toBeGreaterThan(0);
      const page = await listMessages(session, 'INBOX', { unreadOnly: false, limit: 5 });
      expect(page.folder).toBe('INBOX');
      expect(session.logins).toBe(2);
    } finally {
      await session.close();
    }
  });

  it('logs out on close, leaving no socket, and refuses work afterwards', async () => {
    const session = newSession();
    await listMessages(session, 'INBOX', { unreadOnly: false, limit: 1 });
    expect(openConnectionsTo(server.imapPort)).toBe(1);
    await session.close();
    await expect.poll(() => openConnectionsTo(server.imapPort), { timeout: 2000 }).toBe(0);
    await expect(listMessages(session, 'INBOX', { unreadOnly: false, limit: 1 })).rejects.toThrow('shut down');
    await session.close(); // twice is fine
  });
});
