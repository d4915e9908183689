import { rootCertificates } from 'node:tls';
import type { ImapFlow, MailboxLockObject } from 'imapflow';
import type { Logger } from '../../log.js';
import { EmailError, toEmailError } from './errors.js';
import type { MailEndpoint } from './settings.js';

export interface ImapSessionOptions {
  endpoint: MailEndpoint;
  /** Extra trusted CA (PEM), added to Node's default roots. */
  ca?: string;
  log: Logger;
}

/** The folder a tool call named does not exist (the model can pick another). */
export class MailboxMissingError extends Error {
  constructor(readonly folder: string) {
    super(`folder "${folder}" does not exist`);
  }
}

const CONNECT_TIMEOUT_MS = 20_000;
const LOGOUT_GRACE_MS = 2_000;

/**
 * One IMAP connection for the whole daemon: opened on first use, reused by every call, replaced when the server
 * drops it. Each operation holds a mailbox lock, so concurrent calls queue instead of mixing their SELECTs.
 * TLS is always on: implicit TLS, or STARTTLS that must succeed (never a plaintext login).
 */
export class ImapSession {
  private client: ImapFlow | undefined;
  private connecting: Promise<ImapFlow> | undefined;
  private closed = false;
  /** Successful logins so far: one, plus one per reconnect. */
  logins = 0;

  constructor(private readonly options: ImapSessionOptions) {}

  /**
   * Runs `work` with `folder` selected: read-only (EXAMINE, nothing changes) or read-write. When the connection
   * turns out to be dead, reconnects and runs `work` once more — so `work` must be safe to repeat.
   */
  async withMailbox<T>(folder: string, mode: 'read' | 'write', work: (client: ImapFlow) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.connection();
      let lock: MailboxLockObject;
      try {
        lock = await client.getMailboxLock(folder, { readOnly: mode === 'read' });
      } catch (error) {
        if (this.dropIfDead(client) && attempt === 1) continue;
        if ((error as { mailboxMissing?: unknown }).mailboxMissing === true) throw new MailboxMissingError(folder);
        throw error;
      }
      let result: T;
      try {
        // A mailbox still selected from an earlier call hears of new mail only when a command runs: one NOOP.
        await client.noop();
        result = await work(client);
      } catch (error) {
        if (this.dropIfDead(client) && attempt === 1) continue;
        throw error;
      } finally {
        lock.release();
      }
      // Some imapflow commands resolve empty instead of failing when the socket closes under them.
      if (this.dropIfDead(client)) {
        if (attempt === 1) continue;
        throw new EmailError('EMAIL_IMAP_FAILED', `the IMAP server ${this.options.endpoint.host}:${this.options.endpoint.port} closed the connection twice in a row; check that it is healthy`);
      }
      return result;
    }
  }

  /** Every folder's path (for "that folder does not exist; these do"). */
  async folders(): Promise<string[]> {
    const client = await this.connection();
    const list = await client.list();
    return list.map((entry) => entry.path);
  }

  /** Logs in (or reuses the login) and pings the server; throws EmailError saying what to fix. */
  async verify(): Promise<{ tls: boolean }> {
    const client = await this.connection();
    try {
      await client.noop();
    } catch (error) {
      this.dropIfDead(client);
      throw toEmailError('imap', this.options.endpoint, error);
    }
    return { tls: client.secureConnection };
  }

  /** Logs out (or cuts the socket if the server does not answer in time). Safe to call twice. */
  async close(): Promise<void> {
    this.closed = true;
    const pending = this.connecting;
    if (pending) await pending.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, LOGOUT_GRACE_MS);
      timer.unref();
    });
    await Promise.race([client.logout().catch(() => undefined), grace]);
    clearTimeout(timer);
    client.close();
  }

  private connection(): Promise<ImapFlow> {
    if (this.closed) return Promise.reject(new EmailError('EMAIL_CLOSED', 'the email connection is shut down'));
    if (this.client?.usable) return Promise.resolve(this.client);
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async connect(): Promise<ImapFlow> {
    const { endpoint, ca, log } = this.options;
    // Loaded on first use: the daemon's cold start does not pay for the IMAP stack.
    const { ImapFlow } = await import('imapflow');
    const client = new ImapFlow({
      host: endpoint.host,
      port: endpoint.port,
      secure: endpoint.secure,
      // With secure: false imapflow would fall back to plaintext when STARTTLS is missing; require it instead.
      ...(endpoint.secure ? {} : { doSTARTTLS: true }),
      auth: { user: endpoint.user, pass: endpoint.password },
      tls: ca === undefined ? {} : { ca: [...rootCertificates, ca] },
      logger: false,
      // Calls are short and far apart: no IDLE; a connection the server times out is replaced on next use.
      disableAutoIdle: true,
      connectionTimeout: CONNECT_TIMEOUT_MS,
      greetingTimeout: CONNECT_TIMEOUT_MS,
      clientInfo: { name: 'Familiar' },
    });
    // Without a listener a socket error would be thrown from the emitter and take the daemon down.
    client.on('error', (error: unknown) => log.warn({ err: error }, 'imap connection error'));
    client.on('close', () => {
      if (this.client === client) this.client = undefined;
    });
    try {
      await client.connect();
    } catch (error) {
      // imapflow keeps the socket open after a failed login unless it is closed.
      client.close();
      throw toEmailError('imap', endpoint, error);
    }
    if (this.closed) {
      client.close();
      throw new EmailError('EMAIL_CLOSED', 'the email connection is shut down');
    }
    this.logins += 1;
    this.client = client;
    log.debug({ host: endpoint.host, port: endpoint.port, tls: client.secureConnection, logins: this.logins }, 'imap logged in');
    return client;
  }

  /** True (and the client forgotten and closed) when the connection is no longer usable. */
  private dropIfDead(client: ImapFlow): boolean {
    if (client.usable) return false;
    if (this.client === client) this.client = undefined;
    client.close();
    return true;
  }
}
