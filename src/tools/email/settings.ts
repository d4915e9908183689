import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ToolsConfig } from '../../config/schema.js';
import { ConfigError, errorMessage } from '../../errors.js';

/** One server login. `secure: true` is implicit TLS; `false` is STARTTLS, which is then required. */
export interface MailEndpoint {
  host: string;
  port: number;
  secure: boolean;
  user: string;
  password: string;
}

export interface EmailSettings {
  imap: MailEndpoint;
  /** Absent when no SMTP host is configured: reading works, sending says what to set. */
  smtp?: MailEndpoint & { from: string };
  /** Extra trusted CA certificates (PEM) for self-hosted servers, added to Node's default roots. */
  ca?: string;
  allowSend: boolean;
}

export type EmailSettingsResult = { enabled: true; settings: EmailSettings } | { enabled: false; reason: string };

type EmailSection = Omit<NonNullable<ToolsConfig['email']>, 'accounts'>;

/** One mailbox the tool can use: its name (`default` for the top level of `tools.email`) and settings. */
export interface EmailAccountSettings {
  name: string;
  /** The key its settings are under, for messages. */
  key: string;
  settings: EmailSettings;
}

/**
 * Every usable mailbox of `tools.email`: the top level (named `default`) when it has IMAP credentials, then each of
 * `accounts` in order. An account under `accounts` without credentials is a config mistake (ConfigError naming its
 * key), where an empty top level only means "accounts only". Throws ConfigError for an unusable CA, as below.
 */
export function resolveEmailAccounts(section: NonNullable<ToolsConfig['email']> | undefined, configDir: string): { accounts: EmailAccountSettings[]; reason?: string } {
  if (!section) return { accounts: [], reason: 'no tools.email section' };
  const accounts: EmailAccountSettings[] = [];
  const top = resolveEmailSettings(section, configDir);
  if (top.enabled) accounts.push({ name: 'default', key: 'tools.email', settings: top.settings });
  for (const [name, account] of Object.entries(section.accounts)) {
    const key = `tools.email.accounts.${name}`;
    if (name === 'default') throw new ConfigError(key, '"default" names the top level of tools.email; give this account another name');
    const resolved = resolveEmailSettings(account, configDir, key);
    // "tools.email.accounts.work: imap.user, password are empty"
    if (!resolved.enabled) throw new ConfigError(key, resolved.reason.replace(`${key}.`, ''));
    accounts.push({ name, key, settings: resolved.settings });
  }
  if (accounts.length === 0 && !top.enabled) return { accounts, reason: top.reason };
  return { accounts };
}

/**
 * Turns `tools.email` into connection settings. Returns `enabled: false` with the reason when the section is
 * absent or lacks IMAP credentials; throws ConfigError when a CA is configured but unusable (fail at start).
 * `configDir` is where a relative `ca_file` is looked up.
 */
export function resolveEmailSettings(section: EmailSection | undefined, configDir: string, key = 'tools.email'): EmailSettingsResult {
  if (!section) return { enabled: false, reason: 'no tools.email section' };
  const { imap, smtp } = section;
  const missing = (['host', 'user', 'password'] as const).filter((key) => imap[key].trim() === '');
  if (missing.length > 0) {
    return { enabled: false, reason: `${key}.imap.${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} empty` };
  }
  // Implicit TLS unless the operator says otherwise or picks the STARTTLS port.
  const imapSecure = imap.secure ?? imap.port !== 143;
  const settings: EmailSettings = {
    imap: { host: imap.host.trim(), port: imap.port ?? (imapSecure ? 993 : 143), secure: imapSecure, user: imap.user, password: imap.password },
    allowSend: section.allow_send,
  };
  if (smtp.host.trim() !== '') {
    // Submission on 587 with STARTTLS is the common case; 465 is implicit TLS.
    const smtpSecure = smtp.secure ?? smtp.port === 465;
    // Most providers use one login for both; an empty SMTP login borrows the IMAP one.
    const user = smtp.user.trim() !== '' ? smtp.user : imap.user;
    const password = smtp.password !== '' ? smtp.password : imap.password;
    settings.smtp = {
      host: smtp.host.trim(),
      port: smtp.port ?? (smtpSecure ? 465 : 587),
      secure: smtpSecure,
      user,
      password,
      from: smtp.from.trim() !== '' ? smtp.from.trim() : user,
    };
  }
  const ca = loadCa(section, configDir, key);
  if (ca !== undefined) settings.ca = ca;
  return { enabled: true, settings };
}

function loadCa(section: EmailSection, configDir: string, prefix: string): string | undefined {
  let pem: string | undefined;
  let key = `${prefix}.ca`;
  if (section.ca !== undefined && section.ca.trim() !== '') {
    pem = section.ca;
  } else if (section.ca_file !== undefined && section.ca_file.trim() !== '') {
    key = `${prefix}.ca_file`;
    const file = path.resolve(configDir, section.ca_file.trim());
    try {
      pem = readFileSync(file, 'utf8');
    } catch (error) {
      throw new ConfigError(key, `cannot read ${file} (${errorMessage(error)})`, { cause: error });
    }
  }
  if (pem === undefined) return undefined;
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new ConfigError(key, 'is not a PEM certificate (expected "-----BEGIN CERTIFICATE-----")');
  }
  return pem;
}

/** The address part of `Name <addr>` or a bare address, lower-cased (for "is this me?" checks). */
export function bareAddress(value: string): string {
  const match = /<([^<>]+)>\s*$/.exec(value);
  return (match?.[1] ?? value).trim().toLowerCase();
}
