/**
 * A private, real mail system for tests: Dovecot (IMAP, IMAPS, LMTP, auth) and Postfix (SMTP submission
 * with STARTTLS and SASL through Dovecot), both bound to 127.0.0.1 on free ports, with every file
 * (configs, queue, Maildirs, logs, a self-signed certificate) under a fresh temp dir.
 *
 * Mail path: client → Postfix smtpd → Postfix lmtp → Dovecot LMTP → Maildir INBOX → IMAP.
 *
 * Needs root and the Debian packages installed by scripts/setup-mail.sh. Several instances can run at once.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ImapFlow } from 'imapflow';

export interface MailUser {
  /** IMAP / SMTP login. The bare local part (`me`) is accepted too. */
  user: string;
  password: string;
  address: string;
}

export interface MailServer {
  host: '127.0.0.1';
  /** IMAP, plain connection with STARTTLS available. */
  imapPort: number;
  /** IMAP over implicit TLS. */
  imapsPort: number;
  /** SMTP submission: STARTTLS, then AUTH PLAIN/LOGIN (AUTH is only offered after STARTTLS). */
  smtpPort: number;
  /** PEM of the self-signed certificate (CN localhost, SAN DNS:localhost + IP:127.0.0.1), for `tls: { ca }`. */
  ca: string;
  users: { me: MailUser; alice: MailUser };
  /** The instance's temp dir (logs are in `<dir>/log`). Removed by stop(). */
  dir: string;
  /** Last lines of the Dovecot and Postfix logs, for debugging failing tests. */
  logTail(lines?: number): string;
  /** Stops both servers and removes the temp dir; safe to call twice. */
  stop(): Promise<void>;
}

export const MAIL_DOMAIN = 'familiar.test';

const DOVECOT = '/usr/sbin/dovecot';
const POSTFIX_MASTER = '/usr/lib/postfix/sbin/master';
const OPENSSL = 'openssl';
const START_TIMEOUT_MS = 10_000;

const live = new Set<{ pids: () => number[]; dir: string }>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Last resort if a test forgets stop(): kill both masters' process groups and clean up.
  process.on('exit', () => {
    for (const inst of live) {
      for (const pid of inst.pids()) {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          /* already gone */
        }
      }
      try {
        fs.rmSync(inst.dir, { recursive: true, force: true });
      } catch {
        /* best effort */
      }
    }
  });
}

/** Finds `count` distinct free TCP ports on 127.0.0.1 (all held open together so they differ). */
async function freePorts(count: number): Promise<number[]> {
  const servers: net.Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) {
      const srv = net.createServer();
      servers.push(srv);
      await new Promise<void>((resolve, reject) => {
        srv.once('error', reject);
        srv.listen(0, '127.0.0.1', () => resolve());
      });
      const addr = srv.address();
      if (addr === null || typeof addr === 'string') throw new Error('unexpected server address');
      ports.push(addr.port);
    }
    return ports;
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect({ host: '127.0.0.1', port });
    const done = (ok: boolean): void => {
      sock.removeAllListeners();
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(500, () => done(false));
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie still answers kill(0); treat it as gone.
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** All live descendants of the given pids (Linux /proc). */
export function descendantPids(roots: number[]): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ppid = Number(rest[1]);
    const list = children.get(ppid) ?? [];
    list.push(Number(entry));
    children.set(ppid, list);
  }
  const out: number[] = [];
  const queue = [...roots];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    for (const child of children.get(pid) ?? []) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

function readPid(file: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function tail(file: string, lines: number): string {
  try {
    const text = fs.readFileSync(file, 'utf8').trimEnd();
    return text.split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Runs a command to completion with stdio in a file (never a pipe: daemons can keep a pipe open forever). */
async function run(cmd: string, args: string[], outFile: string, env?: NodeJS.ProcessEnv): Promise<void> {
  const fd = fs.openSync(outFile, 'a');
  try {
    const child = spawn(cmd, args, { stdio: ['ignore', fd, fd], env: env ?? process.env });
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (c) => resolve(c));
    });
    if (code !== 0) {
      throw new Error(`${cmd} ${args.join(' ')} exited with ${String(code)}:\n${tail(outFile, 20)}`);
    }
  } finally {
    fs.closeSync(fd);
  }
}

function lookupIds(name: string): { uid: number; gid: number } {
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${name}:`));
  if (line === undefined) throw new Error(`user ${name} not found`);
  const parts = line.split(':');
  return { uid: Number(parts[2]), gid: Number(parts[3]) };
}

/** A temp root every user can traverse (Dovecot delivers as `nobody`, who needs o+x on each parent). */
function traversableTmpRoot(): string {
  let dir = os.tmpdir();
  for (let d = dir; ; d = path.dirname(d)) {
    try {
      if ((fs.statSync(d).mode & 0o001) === 0) {
        dir = '/tmp';
        break;
      }
    } catch {
      dir = '/tmp';
      break;
    }
    if (d === path.dirname(d)) break;
  }
  return dir;
}

function lookupGroup(name: string): number {
  const line = fs
    .readFileSync('/etc/group', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${name}:`));
  if (line === undefined) throw new Error(`group ${name} not found`);
  return Number(line.split(':')[2]);
}

/** The queue layout `postfix post-install create-missing` makes (see /etc/postfix/postfix-files). */
async function createPostfixQueue(queue: string): Promise<void> {
  const pf = lookupIds('postfix');
  const postdrop = lookupGroup('postdrop');
  const dirs: [string, number, number, number][] = [
    ['pid', 0, 0, 0o755],
    ['maildrop', pf.uid, postdrop, 0o730],
    ['public', pf.uid, postdrop, 0o710],
  ];
  for (const d of ['active', 'bounce', 'corrupt', 'defer', 'deferred', 'flush', 'hold', 'incoming', 'private', 'saved', 'trace']) {
    dirs.push([d, pf.uid, 0, 0o700]);
  }
  await fsp.mkdir(queue, { recursive: true, mode: 0o755 });
  for (const [d, uid, gid, mode] of dirs) {
    const p = path.join(queue, d);
    await fsp.mkdir(p);
    await fsp.chown(p, uid, gid);
    await fsp.chmod(p, mode);
  }
}

function assertInstalled(): void {
  const missing = [DOVECOT, POSTFIX_MASTER, '/usr/lib/dovecot/lmtp', '/usr/lib/dovecot/imap'].filter(
    (p) => !fs.existsSync(p),
  );
  if (missing.length > 0) {
    throw new Error(`mail servers not installed (missing ${missing.join(', ')}); run: bash scripts/setup-mail.sh`);
  }
  if (process.getuid?.() !== 0) {
    throw new Error('startMailServer needs root (Postfix master and Dovecot run as root and drop privileges)');
  }
}

function dovecotConf(o: {
  dir: string;
  imapPort: number;
  imapsPort: number;
  lmtpPort: number;
  mailUid: number;
  mailGid: number;
}): string {
  const d = o.dir;
  return `# Private Dovecot instance for tests (generated)
instance_name = familiar-${path.basename(d)}
base_dir = ${d}/dovecot-run
state_dir = ${d}/dovecot-state
log_path = ${d}/log/dovecot.log
info_log_path = ${d}/log/dovecot.log
debug_log_path = ${d}/log/dovecot.log
protocols = imap lmtp
listen = 127.0.0.1
ssl = yes
ssl_cert = <${d}/tls/cert.pem
ssl_key = <${d}/tls/key.pem
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_username_format = %Ln
# Failed logins answer after ~0.5 s: 2.3.19 flushes delayed failures on a fixed 500 ms timer.
auth_failure_delay = 0
auth_cache_size = 0
mail_max_userip_connections = 200
postmaster_address = postmaster@${MAIL_DOMAIN}
hostname = mail.${MAIL_DOMAIN}
mail_location = maildir:~/Maildir
first_valid_uid = 1
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%n ${d}/dovecot-passwd
}
userdb {
  driver = static
  args = uid=${o.mailUid} gid=${o.mailGid} home=${d}/mail/%n
}
namespace inbox {
  inbox = yes
  separator = /
  mailbox Drafts {
    special_use = \\Drafts
    auto = subscribe
  }
  mailbox Sent {
    special_use = \\Sent
    auto = subscribe
  }
  mailbox Trash {
    special_use = \\Trash
    auto = subscribe
  }
  mailbox Junk {
    special_use = \\Junk
    auto = subscribe
  }
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = ${o.imapPort}
  }
  inet_listener imaps {
    address = 127.0.0.1
    port = ${o.imapsPort}
    ssl = yes
  }
}
service pop3-login {
  inet_listener pop3 {
    port = 0
  }
  inet_listener pop3s {
    port = 0
  }
}
service lmtp {
  unix_listener lmtp {
    mode = 0600
  }
  inet_listener lmtp {
    address = 127.0.0.1
    port = ${o.lmtpPort}
  }
}
service auth {
  unix_listener auth-postfix {
    mode = 0666
  }
}
# No anvil auth penalty: failed logins must not slow down later logins.
service anvil {
  unix_listener anvil-auth-penalty {
    mode = 0
  }
}
protocol lmtp {
  mail_plugins =
}
`;
}

function postfixMain(o: { dir: string; lmtpPort: number }): string {
  const d = o.dir;
  return `# Private Postfix instance for tests (generated)
compatibility_level = 3.6
queue_directory = ${d}/postfix-queue
data_directory = ${d}/postfix-data
command_directory = /usr/sbin
daemon_directory = /usr/lib/postfix/sbin
shlib_directory = /usr/lib/postfix
meta_directory = /etc/postfix
mail_owner = postfix
setgid_group = postdrop
syslog_name = postfix-familiar
maillog_file = ${d}/log/postfix.log
maillog_file_prefixes = ${d}
myhostname = mail.${MAIL_DOMAIN}
mydomain = ${MAIL_DOMAIN}
myorigin = $mydomain
mydestination =
relay_domains =
local_recipient_maps =
alias_maps =
alias_database =
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
# Mail from test clients is left as written, as mail from another server would be: Postfix neither adds a
# missing Date nor completes "From: Joe" to "Joe@familiar.test" (it would for clients on its own interfaces).
local_header_rewrite_clients =
biff = no
# Every recipient goes to Dovecot LMTP (which rejects unknown users).
transport_maps = static:lmtp:inet:127.0.0.1:${o.lmtpPort}
default_transport = lmtp:inet:127.0.0.1:${o.lmtpPort}
lmtp_tls_security_level = none
# Submission: STARTTLS, AUTH only after STARTTLS, SASL through Dovecot's auth socket.
smtpd_tls_security_level = may
smtpd_tls_cert_file = ${d}/tls/cert.pem
smtpd_tls_key_file = ${d}/tls/key.pem
smtpd_tls_auth_only = yes
smtpd_sasl_auth_enable = yes
smtpd_sasl_type = dovecot
smtpd_sasl_path = ${d}/dovecot-run/auth-postfix
smtpd_sasl_security_options = noanonymous
smtpd_sasl_tls_security_options = noanonymous
smtpd_relay_restrictions = permit_sasl_authenticated, reject
smtpd_recipient_restrictions = permit_sasl_authenticated, reject
smtpd_helo_required = no
smtpd_banner = $myhostname ESMTP
message_size_limit = 52428800
# Fast retries: a deferred message is retried within seconds, not minutes.
queue_run_delay = 1s
minimal_backoff_time = 1s
maximal_backoff_time = 5s
bounce_queue_lifetime = 1m
maximal_queue_lifetime = 1m
smtpd_error_sleep_time = 0
smtpd_soft_error_limit = 1000
smtpd_hard_error_limit = 1000
smtpd_client_connection_rate_limit = 0
anvil_rate_time_unit = 60s
in_flow_delay = 0
`;
}

function postfixMaster(smtpPort: number): string {
  // Same services as Debian's master.cf, chroot off everywhere, SMTP on our port only.
  return `# service type  private unpriv  chroot  wakeup  maxproc command + args
127.0.0.1:${smtpPort} inet n - n - - smtpd
pickup    unix  n       -       n       60      1       pickup
cleanup   unix  n       -       n       -       0       cleanup
qmgr      unix  n       -       n       300     1       qmgr
tlsmgr    unix  -       -       n       1000?   1       tlsmgr
rewrite   unix  -       -       n       -       -       trivial-rewrite
bounce    unix  -       -       n       -       0       bounce
defer     unix  -       -       n       -       0       bounce
trace     unix  -       -       n       -       0       bounce
verify    unix  -       -       n       -       1       verify
flush     unix  n       -       n       1000?   0       flush
proxymap  unix  -       -       n       -       -       proxymap
proxywrite unix -       -       n       -       1       proxymap
smtp      unix  -       -       n       -       -       smtp
relay     unix  -       -       n       -       -       smtp
showq     unix  n       -       n       -       -       showq
error     unix  -       -       n       -       -       error
retry     unix  -       -       n       -       -       error
discard   unix  -       -       n       -       -       discard
local     unix  -       n       n       -       -       local
lmtp      unix  -       -       n       -       -       lmtp
anvil     unix  -       -       n       -       1       anvil
scache    unix  -       -       n       -       1       scache
postlog   unix-dgram n  -       n       -       1       postlogd
`;
}

async function startOnce(): Promise<MailServer> {
  const root = traversableTmpRoot();
  const dir = await fsp.mkdtemp(path.join(root, 'familiar-mail-'));
  await fsp.chmod(dir, 0o755);
  const nobody = lookupIds('nobody');
  const users = {
    me: { user: `me@${MAIL_DOMAIN}`, password: 'me-secret-1', address: `me@${MAIL_DOMAIN}` },
    alice: { user: `alice@${MAIL_DOMAIN}`, password: 'alice-secret-2', address: `alice@${MAIL_DOMAIN}` },
  } satisfies Record<string, MailUser>;

  const logDir = path.join(dir, 'log');
  const dovecotLog = path.join(logDir, 'dovecot.log');
  const postfixLog = path.join(logDir, 'postfix.log');
  const setupLog = path.join(logDir, 'setup.log');
  const logTail = (lines = 30): string =>
    [
      `--- dovecot.log ---`,
      tail(dovecotLog, lines),
      `--- dovecot-stderr.log ---`,
      tail(path.join(logDir, 'dovecot-stderr.log'), lines),
      `--- postfix.log ---`,
      tail(postfixLog, lines),
      `--- setup.log ---`,
      tail(setupLog, lines),
    ].join('\n');

  let dovecot: ChildProcess | undefined;
  let stopped: Promise<void> | undefined;
  const postfixPidFile = path.join(dir, 'postfix-queue', 'pid', 'master.pid');
  const masterPids = (): number[] => {
    const pids: number[] = [];
    if (dovecot?.pid !== undefined) pids.push(dovecot.pid);
    const pf = readPid(postfixPidFile);
    if (pf !== undefined) pids.push(pf);
    return pids;
  };
  let watchdog: ChildProcess | undefined;
  // If this process dies without stop() (a Vitest worker is killed, not exited, so 'exit' hooks don't
  // run), a detached shell notices and kills both servers' process groups and removes the temp dir.
  const startWatchdog = (): void => {
    const groups = masterPids()
      .map((p) => `-${p}`)
      .join(' ');
    const script = `while kill -0 ${process.pid} 2>/dev/null; do sleep 0.5; done; kill -KILL ${groups} 2>/dev/null; sleep 0.2; rm -rf '${dir}'`;
    watchdog = spawn('/bin/sh', ['-c', script], { stdio: 'ignore', detached: true });
    watchdog.unref();
  };
  const instance = { pids: masterPids, dir };
  live.add(instance);
  installExitHook();

  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      if (watchdog?.pid !== undefined) {
        try {
          process.kill(watchdog.pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
      const masters = masterPids().filter(isAlive);
      const all = [...masters, ...descendantPids(masters)];
      // Both masters lead their own process group (dovecot: spawned detached; postfix master: setsid).
      // Signal the whole group: Dovecot's master otherwise waits for busy children to finish.
      const signal = (sig: NodeJS.Signals): void => {
        for (const pid of masters) {
          try {
            process.kill(-pid, sig);
          } catch {
            /* not a group leader or gone */
          }
        }
        for (const pid of all.filter(isAlive)) {
          try {
            process.kill(pid, sig);
          } catch {
            /* gone */
          }
        }
      };
      signal('SIGTERM');
      let deadline = Date.now() + 1_500;
      while (all.some(isAlive) && Date.now() < deadline) await sleep(20);
      if (all.some(isAlive)) {
        signal('SIGKILL');
        deadline = Date.now() + 2_000;
        while (all.some(isAlive) && Date.now() < deadline) await sleep(20);
      }
      live.delete(instance);
      await fsp.rm(dir, { recursive: true, force: true });
    })();
    return stopped;
  };

  try {
    const [imapPort, imapsPort, lmtpPort, smtpPort] = (await freePorts(4)) as [number, number, number, number];

    await Promise.all(
      ['log', 'tls', 'mail', 'postfix', 'postfix-data', 'dovecot-state'].map((d) =>
        fsp.mkdir(path.join(dir, d), { recursive: true, mode: 0o755 }),
      ),
    );
    await fsp.writeFile(setupLog, '');
    const pfUser = lookupIds('postfix');
    await fsp.chown(path.join(dir, 'postfix-data'), pfUser.uid, pfUser.gid);
    await fsp.chmod(path.join(dir, 'postfix-data'), 0o700);

    // Self-signed certificate for localhost / 127.0.0.1 (EC: fast to generate).
    await run(
      OPENSSL,
      [
        'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
        '-days', '3650', '-subj', '/CN=localhost',
        '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
        '-keyout', path.join(dir, 'tls', 'key.pem'), '-out', path.join(dir, 'tls', 'cert.pem'),
      ],
      setupLog,
    );
    await fsp.chmod(path.join(dir, 'tls', 'key.pem'), 0o600);
    const ca = await fsp.readFile(path.join(dir, 'tls', 'cert.pem'), 'utf8');

    // Maildir homes, owned by the delivery user.
    for (const u of Object.values(users)) {
      const home = path.join(dir, 'mail', u.user.split('@')[0] as string);
      await fsp.mkdir(home, { mode: 0o700 });
      await fsp.chown(home, nobody.uid, nobody.gid);
    }
    await fsp.writeFile(
      path.join(dir, 'dovecot-passwd'),
      Object.values(users)
        .map((u) => `${u.user.split('@')[0] as string}:{PLAIN}${u.password}::::::\n`)
        .join(''),
      { mode: 0o644 },
    );
    const dovecotConfPath = path.join(dir, 'dovecot.conf');
    await fsp.writeFile(
      dovecotConfPath,
      dovecotConf({ dir, imapPort, imapsPort, lmtpPort, mailUid: nobody.uid, mailGid: nobody.gid }),
    );
    const postfixDir = path.join(dir, 'postfix');
    await fsp.writeFile(path.join(postfixDir, 'main.cf'), postfixMain({ dir, lmtpPort }));
    await fsp.writeFile(path.join(postfixDir, 'master.cf'), postfixMaster(smtpPort));
    // Postfix re-reads a config file in 300 ms steps until its mtime is in the past second; backdate it.
    const past = new Date(Date.now() - 60_000);
    for (const f of ['main.cf', 'master.cf']) await fsp.utimes(path.join(postfixDir, f), past, past);
    await fsp.writeFile(dovecotLog, '');
    await fsp.writeFile(postfixLog, '');

    // Postfix: we create the queue dirs ourselves and run `master -w` (daemonizes, returns once it is
    // ready). `postfix start` would do the same but its integrity checks cost ~3 s.
    await createPostfixQueue(path.join(dir, 'postfix-queue'));
    const postfixStarted = run(
      POSTFIX_MASTER,
      ['-c', postfixDir, '-w'],
      setupLog,
      { ...process.env, MAIL_CONFIG: postfixDir },
    );

    // Dovecot in the foreground as our (detached, unref'd) child, stdio never a pipe.
    const dovecotOut = fs.openSync(path.join(logDir, 'dovecot-stderr.log'), 'a');
    let dovecotExit: string | undefined;
    try {
      dovecot = spawn(DOVECOT, ['-F', '-c', dovecotConfPath], {
        stdio: ['ignore', dovecotOut, dovecotOut],
        detached: true,
      });
    } finally {
      fs.closeSync(dovecotOut);
    }
    dovecot.once('exit', (code, signal) => {
      dovecotExit = `dovecot exited (code ${String(code)}, signal ${String(signal)})`;
    });
    dovecot.once('error', (err) => {
      dovecotExit = `dovecot failed to start: ${err.message}`;
    });
    dovecot.unref();

    const deadline = Date.now() + START_TIMEOUT_MS;
    await postfixStarted;
    const pending = new Set([imapPort, imapsPort, lmtpPort, smtpPort]);
    while (pending.size > 0) {
      if (dovecotExit !== undefined) {
        throw new Error(`${dovecotExit}\n${tail(path.join(logDir, 'dovecot-stderr.log'), 20)}`);
      }
      if (Date.now() > deadline) {
        throw new Error(`mail server ports not accepting connections after ${START_TIMEOUT_MS} ms: ${[...pending].join(', ')}`);
      }
      for (const port of [...pending]) {
        if (await canConnect(port)) pending.delete(port);
      }
      if (pending.size > 0) await sleep(50);
    }
    startWatchdog();
    // Postfix needs Dovecot's auth socket for SASL.
    const authSocket = path.join(dir, 'dovecot-run', 'auth-postfix');
    while (!fs.existsSync(authSocket)) {
      if (Date.now() > deadline) throw new Error(`Dovecot auth socket ${authSocket} did not appear`);
      await sleep(25);
    }

    return {
      host: '127.0.0.1',
      imapPort,
      imapsPort,
      smtpPort,
      ca,
      users,
      dir,
      logTail,
      stop,
    };
  } catch (err) {
    const logs = logTail(40);
    await stop().catch(() => undefined);
    const message = err instanceof Error ? err.message : String(err);
    throw new Error(`startMailServer failed: ${message}\n${logs}`, { cause: err });
  }
}

/** Starts a private Dovecot + Postfix pair. Call stop() when done (e.g. in afterAll). */
export async function startMailServer(): Promise<MailServer> {
  assertInstalled();
  // A free port can be taken by a parallel test between probing and binding: retry a couple of times.
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce();
    } catch (err) {
      lastError = err;
      const text = err instanceof Error ? err.message : String(err);
      if (!/address already in use|EADDRINUSE|not accepting connections/i.test(text)) break;
    }
  }
  throw lastError;
}

/** An ImapFlow client for one of the server's users (not yet connected). */
export function imapClient(server: MailServer, who: 'me' | 'alice', opts: { implicitTls?: boolean } = {}): ImapFlow {
  const u = server.users[who];
  return new ImapFlow({
    host: server.host,
    port: opts.implicitTls === true ? server.imapsPort : server.imapPort,
    secure: opts.implicitTls === true,
    auth: { user: u.user, pass: u.password },
    tls: { ca: server.ca },
    logger: false,
  });
}

/** APPENDs a raw RFC 822 message to the user's INBOX over real IMAP. Returns the new message's UID if known. */
export async function appendMessage(
  server: MailServer,
  who: 'me' | 'alice',
  raw: string | Buffer,
  flags?: string[],
): Promise<number | undefined> {
  const client = imapClient(server, who);
  await client.connect();
  try {
    const res = await client.append('INBOX', raw, flags ?? []);
    return res && typeof res === 'object' && typeof res.uid === 'number' ? res.uid : undefined;
  } finally {
    await client.logout().catch(() => client.close());
  }
}

/** The subjects in a mailbox's INBOX (none when it cannot be read yet): what the tests look into to see what was sent. */
export async function inboxSubjects(server: MailServer, who: 'alice' | 'me'): Promise<string[]> {
  const client = imapClient(server, who);
  await client.connect();
  try {
    const lock = await client.getMailboxLock('INBOX', { readOnly: true });
    try {
      const subjects: string[] = [];
      for await (const message of client.fetch('1:*', { envelope: true })) subjects.push(message.envelope?.subject ?? '');
      return subjects;
    } finally {
      lock.release();
    }
  } catch {
    return [];
  } finally {
    await client.logout().catch(() => client.close());
  }
}
