import type { Config } from '../../config/schema.js';
import { errorMessage } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { DoctorLine, Part } from '../../part.js';
import type { Workspaces } from '../../workspace/workspace.js';
import type { createRecentMail, createUnseenMail } from './recent.js';
import { EmailError } from './errors.js';
import type { ImapSession } from './imap.js';
import type { SmtpSender } from './send.js';
import { resolveEmailAccounts, type EmailAccountSettings, type EmailSettings } from './settings.js';
import type { MailTriggerSink, MailWatcher } from './watch.js';

/**
 * Installs the `email` tool when `tools.email` has IMAP credentials (at its top level or in `accounts`); otherwise
 * one log line and nothing else. Nothing connects here: the IMAP logins happen on the first call, and imapflow,
 * mailparser and nodemailer are loaded only then. The tool's own modules are loaded only when the section is there.
 */
export async function createEmailPart(deps: { config: Config; configDir: string; log: Logger; workspaces?: Workspaces | undefined; triggers?: MailTriggerSink | undefined }): Promise<{ part: Part; recent: ReturnType<typeof createRecentMail>; unseen: ReturnType<typeof createUnseenMail> } | undefined> {
  const resolved = resolveEmailAccounts(deps.config.tools.email, deps.configDir);
  const log = deps.log.child({ component: 'email' });
  const [first, ...more] = resolved.accounts;
  if (!first) {
    log.info(`email: ${resolved.reason ?? 'no account'}; the email tool is off`);
    return undefined;
  }
  const [{ ImapSession }, { SmtpSender }, { createEmailTool }, { createRecentMail, createUnseenMail }] = await Promise.all([import('./imap.js'), import('./send.js'), import('./tool.js'), import('./recent.js')]);
  // One IMAP connection and one SMTP sender per account, each made on first use.
  const open = ({ name, settings }: EmailAccountSettings) => {
    const session = new ImapSession({ endpoint: settings.imap, ...(settings.ca !== undefined ? { ca: settings.ca } : {}), log });
    const sender = settings.smtp ? new SmtpSender({ endpoint: settings.smtp, ...(settings.ca !== undefined ? { ca: settings.ca } : {}), log }) : undefined;
    log.info(
      { account: name, user: settings.imap.user, imap: `${settings.imap.host}:${settings.imap.port}`, smtp: settings.smtp ? `${settings.smtp.host}:${settings.smtp.port}` : null, allowSend: settings.allowSend },
      `email: ${settings.imap.user}; sending ${!settings.smtp ? 'unavailable (no smtp.host)' : settings.allowSend ? 'allowed' : 'off (allow_send: false)'}`,
    );
    return { name, settings, session, sender, workspaces: deps.workspaces };
  };
  const accounts = [open(first), ...more.map(open)] as const;
  // The notes part's email scan, the heartbeat and new-mail triggers read the first account.
  const main = accounts[0];
  // New mail as triggers (triggers.mail.watch): a second connection, in IDLE, only when asked for.
  const watch = deps.config.triggers.mail;
  const watcher = watch.watch && deps.triggers
    ? new (await import('./watch.js')).MailWatcher({ endpoint: main.settings.imap, ca: main.settings.ca, folder: watch.folder, sink: deps.triggers, log })
    : undefined;
  const part: Part = {
    name: 'email',
    tools: [createEmailTool(accounts)],
    async start() {
      watcher?.start();
    },
    async stop() {
      await watcher?.stop();
    },
    async close() {
      for (const account of accounts) {
        account.sender?.close();
        await account.session.close();
      }
    },
    doctor: async () => [
      ...(await Promise.all(accounts.map((account) => emailDoctor(account.settings, account.session, account.sender)))).flat(),
      ...await watchDoctor(watch, watcher),
    ],
  };
  return { part, recent: createRecentMail(main.session, main.settings.imap.user), unseen: createUnseenMail(main.session, main.settings.imap.user) };
}

async function emailDoctor(settings: EmailSettings, session: ImapSession, sender: SmtpSender | undefined): Promise<DoctorLine[]> {
  const lines: DoctorLine[] = [];
  const imapLabel = `email: IMAP ${settings.imap.user} at ${settings.imap.host}:${settings.imap.port}`;
  try {
    const { tls } = await session.verify();
    lines.push({ status: 'ok', label: imapLabel, detail: `logged in (${settings.imap.secure ? 'implicit TLS' : tls ? 'STARTTLS' : 'no TLS'})` });
  } catch (error) {
    lines.push(doctorFailure(imapLabel, error));
  }
  if (!sender || !settings.smtp) {
    lines.push({ status: 'skip', label: 'email: SMTP', detail: 'no tools.email.smtp.host; sending is unavailable' });
    return lines;
  }
  const smtpLabel = `email: SMTP ${settings.smtp.user} at ${settings.smtp.host}:${settings.smtp.port}`;
  try {
    await sender.verify();
    lines.push({
      status: settings.allowSend ? 'ok' : 'warn',
      label: smtpLabel,
      detail: settings.allowSend ? 'logged in; sending allowed' : 'logged in; sending is off',
      ...(settings.allowSend ? {} : { fix: 'set tools.email.allow_send: true to let the assistant send and reply' }),
    });
  } catch (error) {
    lines.push(doctorFailure(smtpLabel, error));
  }
  return lines;
}

/** Whether the watcher runs and the server offers IDLE (known once it has logged in). */
async function watchDoctor(watch: Config['triggers']['mail'], watcher: MailWatcher | undefined): Promise<DoctorLine[]> {
  if (!watch.watch || !watcher) return [];
  const label = `email: watching ${watch.folder} for new mail`;
  try {
    if (await watcher.offersIdle()) return [{ status: 'ok', label, detail: 'the server offers IMAP IDLE' }];
    return [{ status: 'warn', label, detail: 'the server does not offer IMAP IDLE: new mail is seen only when the watcher reconnects', fix: 'use a server with IDLE (nearly all do), or a cron job that reads the mail' }];
  } catch (error) {
    return [doctorFailure(label, error)];
  }
}

function doctorFailure(label: string, error: unknown): DoctorLine {
  if (error instanceof EmailError) {
    // The message ends with what to change ("…: check tools.email.imap.password").
    const [what, fix] = splitFix(error.message);
    return { status: 'fail', label, detail: what, ...(fix !== undefined ? { fix } : {}) };
  }
  return { status: 'fail', label, detail: errorMessage(error) };
}

function splitFix(message: string): [string, string | undefined] {
  const at = message.lastIndexOf(': ');
  if (at < 0) return [message, undefined];
  return [message.slice(0, at), message.slice(at + 2)];
}
