import { rootCertificates } from 'node:tls';
import type { SMTPSentMessageInfo, Transporter } from 'nodemailer';
import type { Logger } from '../../log.js';
import { toEmailError } from './errors.js';
import type { MailEndpoint } from './settings.js';

export interface OutgoingMail {
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  text: string;
  /** An HTML alternative of `text` (multipart/alternative), when the body was written in Markdown. */
  html?: string;
  attachments: Array<{ filename: string; content: Buffer }>;
  inReplyTo?: string;
  references?: string[];
}

export interface SentMail {
  messageId: string;
  accepted: string[];
  rejected: string[];
}

export interface SmtpSenderOptions {
  endpoint: MailEndpoint & { from: string };
  ca?: string;
  log: Logger;
}

const TIMEOUT_MS = 30_000;

/**
 * Sends through the configured SMTP server with nodemailer: implicit TLS or STARTTLS that must succeed.
 * Messages are plain text, with an HTML alternative when the body was Markdown; attachments arrive as bytes, and nodemailer's own file and URL access is turned off so
 * nothing in a message can make it read a path or fetch a URL.
 */
export class SmtpSender {
  private transport: Transporter<SMTPSentMessageInfo> | undefined;

  constructor(private readonly options: SmtpSenderOptions) {}

  get from(): string {
    return this.options.endpoint.from;
  }

  /** Contract: throws EmailError (login, TLS, reachability, refusal) with what to fix. */
  async send(mail: OutgoingMail, signal?: AbortSignal): Promise<SentMail> {
    const transport = await this.getTransport();
    try {
      const info = await transport.sendMail({
        from: this.options.endpoint.from,
        to: mail.to,
        ...(mail.cc.length > 0 ? { cc: mail.cc } : {}),
        ...(mail.bcc.length > 0 ? { bcc: mail.bcc } : {}),
        subject: mail.subject,
        text: mail.text,
        ...(mail.html !== undefined ? { html: mail.html } : {}),
        attachments: mail.attachments.map((attachment) => ({ filename: attachment.filename, content: attachment.content })),
        ...(mail.inReplyTo !== undefined ? { inReplyTo: mail.inReplyTo } : {}),
        ...(mail.references !== undefined && mail.references.length > 0 ? { references: mail.references } : {}),
        disableFileAccess: true,
        disableUrlAccess: true,
        ...(signal ? { signal } : {}),
      });
      return { messageId: info.messageId, accepted: info.accepted.map(String), rejected: info.rejected.map(String) };
    } catch (error) {
      throw toEmailError('smtp', this.options.endpoint, error);
    }
  }

  /** Connects, upgrades to TLS and logs in without sending anything (for `familiar doctor`). */
  async verify(): Promise<void> {
    const transport = await this.getTransport();
    try {
      await transport.verify();
    } catch (error) {
      throw toEmailError('smtp', this.options.endpoint, error);
    }
  }

  close(): void {
    this.transport?.close();
    this.transport = undefined;
  }

  private async getTransport(): Promise<Transporter<SMTPSentMessageInfo>> {
    if (this.transport) return this.transport;
    const { endpoint, ca } = this.options;
    // Loaded on first send, not at start-up.
    const { default: nodemailer } = await import('nodemailer');
    this.transport = nodemailer.createTransport({
      host: endpoint.host,
      port: endpoint.port,
      secure: endpoint.secure,
      // Never send the password in clear: without implicit TLS, STARTTLS is required.
      requireTLS: !endpoint.secure,
      auth: { user: endpoint.user, pass: endpoint.password },
      ...(ca === undefined ? {} : { tls: { ca: [...rootCertificates, ca] } }),
      connectionTimeout: TIMEOUT_MS,
      greetingTimeout: TIMEOUT_MS,
      socketTimeout: TIMEOUT_MS,
      disableFileAccess: true,
      disableUrlAccess: true,
    });
    return this.transport;
  }
}
