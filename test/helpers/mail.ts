// Mail servers for tests: whether Dovecot and Postfix are installed, a `describeMail` that skips (or, in CI,
// fails) without them, and a count of this process's open connections to a port.
//
// Set-up: `npm test` does it (test/setup/global-setup.ts runs scripts/setup-mail.sh).
import fs from 'node:fs';
import { describe, inject, it } from 'vitest';

export type MailStatus = { available: true } | { available: false; reason: string };

const NEEDED = ['/usr/sbin/dovecot', '/usr/lib/postfix/sbin/master', '/usr/lib/dovecot/lmtp', '/usr/lib/dovecot/imap'];

/** Never throws: when something is missing, `reason` says what and how to fix it. */
export function mailStatus(): MailStatus {
  const missing = NEEDED.filter((file) => !fs.existsSync(file));
  if (missing.length > 0) return { available: false, reason: `Dovecot/Postfix not installed (missing ${missing.join(', ')}); run: bash scripts/setup-mail.sh` };
  if (process.getuid?.() !== 0) return { available: false, reason: 'the private mail servers need root (Postfix and Dovecot drop privileges themselves)' };
  return { available: true };
}

export const mail: MailStatus = mailStatus();

const inCI = process.env.CI === 'true';
let warned = false;

/**
 * `describe` for tests that need real IMAP/SMTP servers. Without them it skips the suite (printing the reason once
 * per file) — except when CI=true, where it registers one failing test instead.
 */
export function describeMail(name: string, fn: () => void): void {
  if (!mail.available && inCI) {
    const reason = mail.reason;
    describe(name, () => {
      it('needs Dovecot and Postfix', () => {
        throw new Error(`mail servers are required in CI but unavailable: ${reason}`);
      });
    });
    return;
  }
  // The global set-up (test/setup/global-setup.ts) already printed one line for what it could not provide.
  if (!mail.available && !warned && inject('familiarSetupSkipped').length === 0) {
    warned = true;
    console.warn(`[mail tests skipped] ${mail.reason}`);
  }
  describe.skipIf(!mail.available)(name, fn);
}

/**
 * TCP connections this process holds open to `port` on 127.0.0.1 (any state but LISTEN), from /proc: the socket
 * inodes among our file descriptors, matched against the kernel's connection table.
 */
export function openConnectionsTo(port: number): number {
  const inodes = new Set<string>();
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    try {
      const target = fs.readlinkSync(`/proc/self/fd/${fd}`);
      const match = /^socket:\[(\d+)\]$/.exec(target);
      if (match?.[1]) inodes.add(match[1]);
    } catch {
      // the fd closed while we looked
    }
  }
  let count = 0;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = fs.readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.trim().split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const remote = fields[2] ?? '';
      const state = fields[3];
      const inode = fields[9] ?? '';
      const remotePort = Number.parseInt(remote.split(':')[1] ?? '', 16);
      if (remotePort === port && state !== '0A' && inodes.has(inode)) count += 1;
    }
  }
  return count;
}
