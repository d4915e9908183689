// Shared by the email tests: config for the private mail server, raw RFC 822 messages, and waiting for delivery.
import { simpleParser, type ParsedMail } from 'mailparser';
import type { Daemon as App } from '../../../src/daemon.js';
import type { CallOutcome } from '../../../src/tools/call.js';
import { imapClient, type MailServer } from '../../helpers/mail-server.js';

export const origin = { channel: 'cli', chatId: 'email-test', userId: 'owner' };

/** `tools.email` for the server's `me` account: STARTTLS on the IMAP port, submission with STARTTLS, the test CA. */
export function emailConfig(server: MailServer, overrides: { imap?: Record<string, unknown>; smtp?: Record<string, unknown>; [key: string]: unknown } = {}) {
  const { imap, smtp, ...rest } = overrides;
  const { me } = server.users;
  return {
    imap: { host: server.host, port: server.imapPort, secure: false, user: me.user, password: me.password, ...imap },
    smtp: { host: server.host, port: server.smtpPort, secure: false, user: me.user, password: me.password, from: `Me Myself <${me.address}>`, ...smtp },
    ca: server.ca,
    allow_send: true,
    ...rest,
  };
}

let counter = 0;
/** A unique token for subjects and Message-IDs, so tests sharing one mailbox do not see each other's mail. */
export function unique(label: string): string {
  counter += 1;
  return `${label}-${process.pid}-${Date.now().toString(36)}-${counter}`;
}

const encodeWord = (text: string) => (/^[\x20-\x7e]*$/.test(text) ? text : `=?UTF-8?B?${Buffer.from(text, 'utf8').toString('base64')}?=`);

export interface RawOptions {
  from?: string;
  to?: string;
  cc?: string;
  subject: string;
  messageId?: string;
  references?: string;
  text?: string;
  html?: string;
  attachment?: { filename: string; contentType: string; content: Buffer };
  date?: string;
}

/** An RFC 822 message as a mail client would send it (plain, HTML-only, or with one attachment). */
export function rawMessage(options: RawOptions): Buffer {
  const headers = [
    `From: ${options.from ?? 'Alice Example <alice@familiar.test>'}`,
    `To: ${options.to ?? 'Me Myself <me@familiar.test>'}`,
    ...(options.cc ? [`Cc: ${options.cc}`] : []),
    `Subject: ${encodeWord(options.subject)}`,
    `Date: ${options.date ?? new Date().toUTCString()}`,
    `Message-ID: ${options.messageId ?? `<${unique('m')}@familiar.test>`}`,
    ...(options.references ? [`References: ${options.references}`] : []),
    'MIME-Version: 1.0',
  ];
  const textPart = options.html !== undefined
    ? ['Content-Type: text/html; charset=utf-8', 'Content-Transfer-Encoding: 8bit', '', options.html]
    : ['Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: 8bit', '', options.text ?? ''];
  let body: string[];
  if (options.attachment) {
    const boundary = `b-${unique('boundary')}`;
    const base64 = options.attachment.content.toString('base64').replace(/.{76}/g, '$&\r\n');
    body = [
      `Content-Type: multipart/mixed; boundary="${boundary}"`, '', `--${boundary}`, ...textPart, `--${boundary}`,
      `Content-Type: ${options.attachment.contentType}; name="${options.attachment.filename}"`,
      `Content-Disposition: attachment; filename="${options.attachment.filename}"`,
      'Content-Transfer-Encoding: base64', '', base64, `--${boundary}--`, '',
    ];
  } else {
    body = [...textPart, ''];
  }
  return Buffer.from([...headers, ...body].join('\r\n'), 'utf8');
}

/** Calls the email tool through the registry, as the agent does; high-risk calls are approved by the test. */
export function callEmail(app: App, args: Record<string, unknown>, conversationId = 'email-test'): Promise<CallOutcome> {
  return app.tools.execute({
    name: 'email',
    arguments: args,
    conversationId,
    turnId: 'turn-1',
    origin,
    approve: async () => ({ approved: true, by: 'test' }),
  });
}

/** Waits until a message with `subject` reaches `who`'s INBOX (delivery through Postfix takes a moment). */
export async function waitForMail(server: MailServer, who: 'me' | 'alice', subject: string, timeoutMs = 10_000): Promise<{ uid: number; parsed: ParsedMail; flags: Set<string> }> {
  const client = imapClient(server, who);
  await client.connect();
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const lock = await client.getMailboxLock('INBOX', { readOnly: true });
      try {
        await client.noop(); // new mail reaches a selected mailbox only when a command runs (as in src/tools/email/imap.ts)
        const uids = (await client.search({ subject }, { uid: true })) || [];
        const uid = uids.at(-1);
        if (uid !== undefined) {
          const message = await client.fetchOne(String(uid), { source: true, flags: true }, { uid: true });
          if (message && message.source) return { uid, parsed: await simpleParser(message.source), flags: message.flags ?? new Set() };
        }
      } finally {
        lock.release();
      }
      if (Date.now() > deadline) throw new Error(`no mail "${subject}" for ${who} within ${timeoutMs} ms\n${server.logTail()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await client.logout().catch(() => client.close());
  }
}

/** The flags of one message in `who`'s INBOX, read without touching them. */
export async function flagsOf(server: MailServer, who: 'me' | 'alice', uid: number): Promise<Set<string>> {
  const client = imapClient(server, who);
  await client.connect();
  try {
    const lock = await client.getMailboxLock('INBOX', { readOnly: true });
    try {
      const message = await client.fetchOne(String(uid), { flags: true }, { uid: true });
      return message && message.flags ? message.flags : new Set();
    } finally {
      lock.release();
    }
  } finally {
    await client.logout().catch(() => client.close());
  }
}
