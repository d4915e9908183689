// The suites' mail on the tests' real Dovecot + Postfix: every address the suite names gets a mailbox (so what the
// assistant sends is delivered and can be read back), the person's folders are reset and seeded before each run,
// and after it Postfix's own log says which messages left and where they were delivered.
import { chownSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ImapFlow } from 'imapflow';
import { simpleParser, type AddressObject } from 'mailparser';
import type { MailServer } from '../../../test/helpers/mail-server.js';

/** A message as a recipient got it. */
export interface Delivered {
  from: string;
  to: string[];
  subject: string;
  text: string;
  attachments: string[];
}

/** One email of a suite's inbox (AgentDojo's fields). */
export interface SeedEmail {
  id_?: string;
  sender: string;
  recipients?: string[] | null;
  cc?: string[] | null;
  bcc?: string[] | null;
  subject: string;
  body: string;
  status?: string;
  read?: boolean;
  timestamp?: string;
}

const ADDRESS = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
const FOLDERS: ReadonlyMap<string, string> = new Map([['received', 'INBOX'], ['sent', 'Sent'], ['draft', 'Drafts']]);

export const localPart = (address: string): string => (address.split('@')[0] ?? address).toLowerCase();
const passwordOf = (address: string): string => `pw-${localPart(address)}`;

export function addressesIn(text: string): string[] {
  return [...new Set(text.match(ADDRESS) ?? [])];
}

export class SuiteMail {
  private readonly known = new Set<string>();
  /** The person's INBOX uid from which this run's deliveries start (what was seeded is older). */
  private personUidNext = 1;

  constructor(readonly server: MailServer) {}

  /**
   * Mailboxes for these addresses, added to the running Dovecot (its passwd file is read on each login, so no
   * restart): Postfix then delivers to them instead of bouncing. Mailboxes are per local part, as Dovecot looks
   * users up (`%Ln`).
   */
  addUsers(addresses: readonly string[]): void {
    const passwd = path.join(this.server.dir, 'dovecot-passwd');
    const lines: string[] = [];
    for (const address of addresses) {
      const user = localPart(address);
      if (this.known.has(user) || user === 'me' || user === 'alice') continue;
      this.known.add(user);
      const home = path.join(this.server.dir, 'mail', user);
      if (!existsSync(home)) {
        // Dovecot delivers as the home's owner (nobody, as the helper's own users).
        mkdirSync(home, { mode: 0o700 });
        const owner = statSync(path.join(this.server.dir, 'mail', 'me'));
        chownSync(home, owner.uid, owner.gid);
      }
      lines.push(`${user}:{PLAIN}${passwordOf(address)}::::::\n`);
    }
    if (lines.length > 0) writeFileSync(passwd, readFileSync(passwd, 'utf8') + lines.join(''));
  }

  /** The IMAP/SMTP login of an address's mailbox, for the daemon's email config. */
  login(address: string): { user: string; password: string } {
    return { user: address, password: passwordOf(address) };
  }

  private client(address: string): ImapFlow {
    return new ImapFlow({ host: this.server.host, port: this.server.imapPort, secure: false, auth: { user: address, pass: passwordOf(address) }, tls: { ca: this.server.ca }, logger: false });
  }

  /** Empties the person's folders and seeds them with the suite's emails (received in INBOX, sent in Sent). */
  async seedPerson(person: string, emails: readonly SeedEmail[]): Promise<void> {
    const client = this.client(person);
    await client.connect();
    try {
      for (const folder of ['INBOX', 'Sent', 'Drafts', 'Trash']) {
        const lock = await client.getMailboxLock(folder);
        try {
          if ((client.mailbox && client.mailbox.exists > 0)) await client.messageDelete('1:*');
        } finally {
          lock.release();
        }
      }
      for (const email of emails) {
        const folder = FOLDERS.get(email.status ?? 'received') ?? 'INBOX';
        const flags = [...(email.read === false ? [] : ['\\Seen']), ...(folder === 'Drafts' ? ['\\Draft'] : [])];
        await client.append(folder, rfc822(email), flags);
      }
      const status = await client.status('INBOX', { uidNext: true });
      this.personUidNext = (status && status.uidNext) || 1;
    } finally {
      await client.logout().catch(() => client.close());
    }
  }

  /** Where Postfix's log ends now: what it writes after this belongs to the run. */
  logOffset(): number {
    return statSync(this.logFile()).size;
  }

  /**
   * Waits until Postfix has finished with every message queued since `offset` (delivered, bounced or deferred), and
   * with at least `sent` of them (its log is written by a separate process and can lag behind the SMTP answer),
   * then returns the addresses it delivered to.
   */
  async settle(offset: number, sent: number, timeoutMs = 15_000): Promise<string[]> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const text = readFileSync(this.logFile(), 'utf8').slice(offset);
      const queued = new Set([...text.matchAll(/: ([0-9A-F]+): message-id=/g)].map((match) => match[1]));
      const done = new Set([...text.matchAll(/: ([0-9A-F]+): removed/g)].map((match) => match[1]));
      const open = [...queued].filter((id) => !done.has(id));
      if ((open.length === 0 && done.size >= sent) || Date.now() > until) {
        return [...new Set([...text.matchAll(/: to=<([^>]+)>.*status=sent/g)].map((match) => (match[1] ?? '').toLowerCase()))];
      }
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
  }

  /**
   * The messages delivered to an address in this run, removed from its mailbox afterwards (the next run starts
   * empty). For the person, only what arrived after the seed.
   */
  async collect(address: string, person: string): Promise<Delivered[]> {
    const client = this.client(address);
    await client.connect();
    const found: Delivered[] = [];
    try {
      const lock = await client.getMailboxLock('INBOX');
      try {
        const isPerson = localPart(address) === localPart(person);
        const range = isPerson ? `${this.personUidNext}:*` : '1:*';
        if (client.mailbox && client.mailbox.exists > 0) {
          for await (const message of client.fetch(range, { source: true, uid: true }, { uid: true })) {
            if (isPerson && message.uid < this.personUidNext) continue;
            if (message.source) found.push(await parse(message.source));
          }
          if (!isPerson) await client.messageDelete('1:*');
        }
      } finally {
        lock.release();
      }
    } finally {
      await client.logout().catch(() => client.close());
    }
    return found;
  }

  /** Unread messages in the person's INBOX. */
  async unseen(person: string): Promise<number> {
    const client = this.client(person);
    await client.connect();
    try {
      const status = await client.status('INBOX', { unseen: true });
      return (status && status.unseen) || 0;
    } finally {
      await client.logout().catch(() => client.close());
    }
  }

  private logFile(): string {
    return path.join(this.server.dir, 'log', 'postfix.log');
  }
}

async function parse(source: Buffer): Promise<Delivered> {
  const mail = await simpleParser(source, { skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true });
  const addresses = (value: AddressObject | AddressObject[] | undefined): string[] =>
    (Array.isArray(value) ? value : value ? [value] : []).flatMap((item) => item.value.map((entry) => (entry.address ?? '').toLowerCase()));
  return {
    from: addresses(mail.from)[0] ?? '',
    to: [...addresses(mail.to), ...addresses(mail.cc)],
    subject: mail.subject ?? '',
    text: (mail.text ?? '').replace(/\r\n/g, '\n'),
    attachments: mail.attachments.map((attachment) => attachment.filename ?? ''),
  };
}

function rfc822(email: SeedEmail): string {
  const date = email.timestamp ? new Date(`${email.timestamp}Z`) : new Date('2024-05-15T08:00:00Z');
  const headers = [
    `From: ${email.sender}`,
    `To: ${(email.recipients ?? []).join(', ')}`,
    ...(email.cc && email.cc.length > 0 ? [`Cc: ${email.cc.join(', ')}`] : []),
    ...(email.bcc && email.bcc.length > 0 && email.status === 'sent' ? [`Bcc: ${email.bcc.join(', ')}`] : []),
    `Subject: ${encodeHeader(email.subject)}`,
    `Date: ${date.toUTCString()}`,
    `Message-ID: <agentdojo-${email.id_ ?? Math.random().toString(36).slice(2)}@bluesparrowtech.com>`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: base64',
  ];
  const body = Buffer.from(email.body.replace(/\r?\n/g, '\r\n'), 'utf8').toString('base64').replace(/.{76}/g, '$&\r\n');
  return `${headers.join('\r\n')}\r\n\r\n${body}\r\n`;
}

/** RFC 2047 for a subject outside ASCII. */
function encodeHeader(text: string): string {
  return /^[\x20-\x7e]*$/.test(text) ? text : `=?UTF-8?B?${Buffer.from(text, 'utf8').toString('base64')}?=`;
}
