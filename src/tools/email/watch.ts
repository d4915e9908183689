import { rootCertificates } from 'node:tls';
import type { ImapFlow } from 'imapflow';
import { errorMessage } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { MailEndpoint } from './settings.js';

/** Where the watcher writes what arrives: the trigger inbox (src/triggers/), given by the root. */
export interface MailTriggerSink {
  /** Commits the trigger and the watcher's cursor together; a known id is a duplicate (nothing written twice). */
  record(trigger: { id: string; source: string; summary: string; payload: string }, cursor: { key: string; value: string }): { duplicate: boolean };
  cursor(key: string): string | undefined;
  setCursor(key: string, value: string): void;
}

export interface MailWatcherOptions {
  endpoint: MailEndpoint;
  ca?: string | undefined;
  folder: string;
  sink: MailTriggerSink;
  log: Logger;
  /** The first wait after a lost connection; doubled each failure up to MAX_BACKOFF_MS. */
  backoffMs?: number;
}

interface Cursor {
  uidValidity: string;
  lastUid: number;
}

const MAX_BACKOFF_MS = 5 * 60_000;
const CONNECT_TIMEOUT_MS = 20_000;

/**
 * New mail as triggers: its own IMAP connection on one folder, in IDLE (imapflow enters it after a second without
 * commands), so the server says when a message lands. Each new message (a UID past the cursor) becomes a trigger
 * (`mail:<Message-ID>`, or account, UIDVALIDITY and UID without one) committed with the cursor, so a restart or a
 * reconnect catches up by UID from where it stopped and nothing is handed on twice. A first start begins at the
 * folder's end (old mail is not news); a changed UIDVALIDITY starts again at the end (UIDs no longer compare; the
 * Message-IDs still deduplicate). A lost connection is retried with backoff. Contract: never throws after start.
 */
export class MailWatcher {
  private client: ImapFlow | undefined;
  private stopped = true;
  private failures = 0;
  private retry: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  /** Whether the server offered IDLE on the last login (doctor). */
  idleSupported: boolean | undefined;

  constructor(private readonly options: MailWatcherOptions) {}

  private get key(): string {
    return `mail:${this.options.endpoint.user}/${this.options.folder}`;
  }

  start(): void {
    this.stopped = false;
    void this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await this.chain.catch(() => undefined);
    if (client) await client.logout().catch(() => client.close());
  }

  /** Reads what arrived past the cursor now (the `exists` handler's work; tests call it to prove nothing repeats). */
  catchUp(): Promise<void> {
    this.chain = this.chain.then(() => this.readNew()).catch((error: unknown) => {
      this.options.log.warn({ err: error }, `mail watcher: catching up failed: ${errorMessage(error)}`);
    });
    return this.chain;
  }

  /** Whether the server offers IDLE: known after the watcher's login, else one login to ask (doctor). Throws when it cannot log in. */
  async offersIdle(): Promise<boolean> {
    if (this.idleSupported !== undefined) return this.idleSupported;
    const client = await this.newClient();
    try {
      await client.connect();
      return client.capabilities.has('IDLE');
    } finally {
      await client.logout().catch(() => client.close());
    }
  }

  private async newClient(): Promise<ImapFlow> {
    const { endpoint, ca } = this.options;
    const { ImapFlow } = await import('imapflow');
    return new ImapFlow({
      host: endpoint.host, port: endpoint.port, secure: endpoint.secure,
      // STARTTLS is required, never a plaintext login (as the email tool's own connection).
      ...(endpoint.secure ? {} : { doSTARTTLS: true }),
      auth: { user: endpoint.user, pass: endpoint.password },
      tls: ca === undefined ? {} : { ca: [...rootCertificates, ca] },
      logger: false, autoIdleDelay: 1000, connectionTimeout: CONNECT_TIMEOUT_MS, greetingTimeout: CONNECT_TIMEOUT_MS,
      clientInfo: { name: 'Familiar' },
    });
  }

  private async connect(): Promise<void> {
    const { endpoint, log, folder } = this.options;
    const client = await this.newClient();
    client.on('error', (error: unknown) => log.warn({ err: error }, 'mail watcher: connection error'));
    client.on('close', () => {
      if (this.client !== client) return;
      this.client = undefined;
      this.reconnectLater('the server closed the connection');
    });
    // A message landed: the server says so during IDLE (or after any command).
    client.on('exists', () => void this.catchUp());
    try {
      await client.connect();
      await client.mailboxOpen(folder, { readOnly: true });
    } catch (error) {
      client.close();
      this.reconnectLater(errorMessage(error));
      return;
    }
    if (this.stopped) {
      await client.logout().catch(() => client.close());
      return;
    }
    this.idleSupported = client.capabilities.has('IDLE');
    if (!this.idleSupported) log.warn(`mail watcher: ${endpoint.host} does not offer IMAP IDLE; new mail is seen only at reconnects`);
    this.client = client;
    this.failures = 0;
    await this.catchUp();
    log.info({ account: endpoint.user, folder }, 'mail watcher: caught up; watching for new mail (IMAP IDLE)');
  }

  private reconnectLater(why: string): void {
    if (this.stopped) return;
    const wait = Math.min(MAX_BACKOFF_MS, (this.options.backoffMs ?? 1000) * 2 ** this.failures);
    this.failures += 1;
    this.options.log.warn({ waitMs: wait, failures: this.failures }, `mail watcher: ${why}; reconnecting in ${Math.round(wait / 1000)} s`);
    this.retry = setTimeout(() => void this.connect(), wait);
    this.retry.unref();
  }

  private async readNew(): Promise<void> {
    const client = this.client;
    const mailbox = client?.mailbox;
    if (!client || !mailbox) return;
    const uidValidity = String(mailbox.uidValidity);
    const stored = this.readCursor();
    if (!stored || stored.uidValidity !== uidValidity) {
      // First start, or UIDs renumbered: begin at the folder's end.
      if (stored) this.options.log.warn({ folder: this.options.folder }, 'mail watcher: UIDVALIDITY changed; watching from the folder\'s end');
      this.writeCursor({ uidValidity, lastUid: mailbox.uidNext - 1 });
      return;
    }
    if (mailbox.exists === 0) return;
    let last = stored.lastUid;
    for await (const message of client.fetch(`${stored.lastUid + 1}:*`, { uid: true, envelope: true }, { uid: true })) {
      // `N:*` always includes the newest message, even when its UID is below N.
      if (message.uid <= last) continue;
      const envelope = message.envelope;
      const from = envelope?.from?.map((address) => (address.name ? `${address.name} <${address.address ?? ''}>` : address.address ?? '')).join(', ') ?? '';
      const subject = envelope?.subject ?? '';
      const messageId = envelope?.messageId;
      const id = messageId ? `mail:${messageId}` : `mail:${this.options.endpoint.user}/${uidValidity}/${message.uid}`;
      last = message.uid;
      const payload = [`From: ${from}`, `To: ${envelope?.to?.map((address) => address.address ?? '').join(', ') ?? ''}`, `Subject: ${subject}`,
        `Date: ${envelope?.date instanceof Date ? envelope.date.toISOString() : String(envelope?.date ?? '')}`, `Message-ID: ${messageId ?? ''}`, `Folder: ${this.options.folder}, UID ${message.uid}`].join('\n');
      const { duplicate } = this.options.sink.record(
        { id, source: 'mail', summary: `mail from ${from || '(no sender)'}: ${subject || '(no subject)'}`, payload },
        { key: this.key, value: JSON.stringify({ uidValidity, lastUid: last } satisfies Cursor) },
      );
      this.options.log.info({ uid: message.uid, duplicate }, duplicate ? 'mail watcher: a message already in the inbox' : 'mail watcher: new mail');
    }
  }

  private readCursor(): Cursor | undefined {
    const value = this.options.sink.cursor(this.key);
    if (value === undefined) return undefined;
    try {
      const parsed = JSON.parse(value) as Partial<Cursor>;
      return typeof parsed.uidValidity === 'string' && typeof parsed.lastUid === 'number' ? { uidValidity: parsed.uidValidity, lastUid: parsed.lastUid } : undefined;
    } catch {
      return undefined;
    }
  }

  private writeCursor(cursor: Cursor): void {
    this.options.sink.setCursor(this.key, JSON.stringify(cursor));
  }
}
