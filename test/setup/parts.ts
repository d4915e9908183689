// What the suites need from the machine (a Docker engine, the sandbox image, the mail servers, the voice engines,
// the shells, a browser), whether it is
// there, and what the test set-up (global-setup.ts) can do about what is not. Checks only: nothing here installs.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Docker from 'dockerode';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const TEST_IMAGE = 'familiar-sandbox:test';
const MAIL_FILES = ['/usr/sbin/dovecot', '/usr/lib/postfix/sbin/master', '/usr/lib/dovecot/lmtp', '/usr/lib/dovecot/imap'];
/** ffmpeg, espeak-ng, pocketsphinx and its English model: the real local engines of the voice suites. */
export const VOICE_FILES = ['/usr/bin/ffmpeg', '/usr/bin/ffprobe', '/usr/bin/espeak-ng', '/usr/bin/pocketsphinx_continuous', '/usr/share/pocketsphinx/model/en-us/en-us/mdef'];

export type Part = 'docker' | 'image' | 'mail' | 'voice' | 'tools' | 'browser' | 'caldav';

/** The programs the command-line tests run (completion scripts in each shell, `systemd-analyze verify`). */
export const CLI_TOOLS: Readonly<Record<string, string>> = { zsh: '/usr/bin/zsh', fish: '/usr/bin/fish', 'systemd-analyze': '/usr/bin/systemd-analyze' };

/** Radicale and Xandikos (the CalDAV servers), python3-caldav (a second client) and the recurrence oracle. */
export const CALDAV_FILES = ['/usr/bin/radicale', '/usr/bin/xandikos', '/usr/lib/python3/dist-packages/caldav/__init__.py', '/usr/lib/python3/dist-packages/dateutil/rrule.py', '/usr/lib/python3/dist-packages/icalendar/__init__.py'];

/** Debian's chromium, which the console's browser tests drive (playwright-core). */
export const CHROMIUM = '/usr/bin/chromium';

export interface PartStatus {
  ready: boolean;
  /** Why not, when not. */
  reason?: string;
}

export type MachineStatus = Record<Part, PartStatus>;

export interface Capability {
  /** Root, or sudo without a password: what the set-up scripts need to install and start things. */
  privileged: boolean;
  /** Debian (or a derivative) with apt-get: what the set-up scripts know how to install on. */
  debian: boolean;
  /** DOCKER_HOST names another engine: the set-up does not start a local one in its place. */
  remoteEngine: boolean;
}

export type Step =
  | { part: Part; action: 'ready' }
  | { part: Part; action: 'install'; script: string; what: string }
  | { part: Part; action: 'skip'; line: string };

/** The version build-sandbox-image.sh stamps on the image: a hash of what determines its content. */
export function expectedImageVersion(): string {
  const hash = createHash('sha256');
  for (const file of ['scripts/build-sandbox-image.sh', 'docker/sandbox/fake-code-agent']) hash.update(readFileSync(path.join(ROOT, file)));
  return hash.digest('hex').slice(0, 16);
}

/** Checks the engine (a ping), the test image (and that it is this checkout's version), and the mail binaries. */
export async function checkMachine(timeoutMs = 2000): Promise<MachineStatus> {
  const where = process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock';
  const status: MachineStatus = {
    docker: { ready: false, reason: `no Docker engine answers at ${where}` },
    image: { ready: false, reason: 'no Docker engine to hold it' },
    mail: mailStatus(),
    voice: voiceStatus(),
    tools: toolsStatus(),
    browser: browserStatus(),
    caldav: caldavStatus(),
  };
  const docker = new Docker({ timeout: timeoutMs });
  try {
    await docker.ping();
    status.docker = { ready: true };
  } catch {
    return status;
  }
  try {
    const info = await docker.getImage(TEST_IMAGE).inspect();
    const version = info.Config.Labels?.['familiar.sandbox.version'];
    status.image = version === expectedImageVersion() ? { ready: true } : { ready: false, reason: `${TEST_IMAGE} is from an older build script (version ${version ?? 'none'})` };
  } catch {
    status.image = { ready: false, reason: `the image ${TEST_IMAGE} is missing` };
  }
  return status;
}

function voiceStatus(): PartStatus {
  const missing = VOICE_FILES.filter((file) => !existsSync(file));
  if (missing.length > 0) return { ready: false, reason: `ffmpeg, espeak-ng and pocketsphinx are not installed (no ${missing.join(', ')})` };
  return { ready: true };
}

export function browserStatus(): PartStatus {
  return existsSync(CHROMIUM) ? { ready: true } : { ready: false, reason: `Debian's chromium is not installed (no ${CHROMIUM})` };
}

export function caldavStatus(): PartStatus {
  const missing = CALDAV_FILES.filter((file) => !existsSync(file));
  if (missing.length > 0) return { ready: false, reason: `radicale, xandikos, python3-caldav, python3-dateutil and python3-icalendar are not installed (no ${missing.join(', ')})` };
  return { ready: true };
}

function mailStatus(): PartStatus {
  const missing = MAIL_FILES.filter((file) => !existsSync(file));
  if (missing.length > 0) return { ready: false, reason: `Dovecot/Postfix are not installed (no ${missing.join(', ')})` };
  return { ready: true };
}

function toolsStatus(): PartStatus {
  const missing = Object.entries(CLI_TOOLS).filter(([, file]) => !existsSync(file)).map(([name]) => name);
  if (missing.length > 0) return { ready: false, reason: `${missing.join(', ')} not installed` };
  return { ready: true };
}

export function machineCapability(): Capability {
  const root = process.getuid?.() === 0;
  let sudo = false;
  if (!root) {
    try {
      execFileSync('sudo', ['-n', 'true'], { stdio: 'ignore', timeout: 2000 });
      sudo = true;
    } catch {
      sudo = false;
    }
  }
  return {
    privileged: root || sudo,
    debian: existsSync('/etc/debian_version') && ['/usr/bin/apt-get', '/bin/apt-get'].some((file) => existsSync(file)),
    remoteEngine: process.env.DOCKER_HOST !== undefined && process.env.DOCKER_HOST !== '' && !process.env.DOCKER_HOST.startsWith('unix://'),
  };
}

const HOW = {
  docker: 'install and start a Docker engine (Debian: apt-get install docker.io; or run npm test as root on Debian and it does so), then: sudo bash scripts/build-sandbox-image.sh',
  image: 'build it as root: sudo bash scripts/build-sandbox-image.sh (or docker build -t familiar-sandbox:test docker/sandbox where a registry is reachable)',
  mail: 'as root on Debian: sudo bash scripts/setup-mail.sh (apt-get install dovecot-imapd dovecot-lmtpd postfix); the private servers also need the tests to run as root',
  voice: 'as root on Debian: sudo bash scripts/setup-voice.sh (apt-get install ffmpeg espeak-ng pocketsphinx pocketsphinx-en-us)',
  tools: 'sudo bash scripts/setup-cli-tools.sh (apt-get install zsh fish systemd)',
  browser: 'as root on Debian: sudo bash scripts/setup-browser.sh (apt-get install chromium)',
  caldav: 'as root on Debian: sudo bash scripts/setup-caldav.sh (apt-get install radicale xandikos python3-caldav python3-dateutil python3-icalendar)',
} as const;

/** What to do for each part: nothing, run its set-up script, or skip its suites with one line saying what to install. */
export function planSetup(status: MachineStatus, capability: Capability): Step[] {
  const steps: Step[] = [];
  const can = capability.privileged && capability.debian;
  const dockerComing = status.docker.ready || (can && !capability.remoteEngine);
  if (status.docker.ready) steps.push({ part: 'docker', action: 'ready' });
  else if (dockerComing) steps.push({ part: 'docker', action: 'install', script: 'scripts/setup-docker.sh', what: 'installing Docker (docker.io) if needed and starting dockerd' });
  else steps.push({ part: 'docker', action: 'skip', line: `Docker suites skipped: ${status.docker.reason ?? 'no engine'}. To run them, ${HOW.docker}` });

  if (status.image.ready) steps.push({ part: 'image', action: 'ready' });
  else if (dockerComing && capability.privileged && capability.debian) steps.push({ part: 'image', action: 'install', script: 'scripts/build-sandbox-image.sh', what: `building ${TEST_IMAGE} offline with debootstrap (about 90 s, once)` });
  else if (dockerComing) steps.push({ part: 'image', action: 'skip', line: `Docker suites skipped: ${status.image.reason ?? 'no image'}. To run them, ${HOW.image}` });

  const mailRoot = process.getuid?.() === 0;
  if (status.mail.ready && mailRoot) steps.push({ part: 'mail', action: 'ready' });
  else if (!status.mail.ready && can) steps.push({ part: 'mail', action: 'install', script: 'scripts/setup-mail.sh', what: 'installing Dovecot and Postfix (about 15 s, once)' });
  else steps.push({ part: 'mail', action: 'skip', line: `mail suites skipped: ${status.mail.ready ? 'the private mail servers need the tests to run as root' : status.mail.reason ?? 'not installed'}. To run them, ${HOW.mail}` });

  if (status.voice.ready) steps.push({ part: 'voice', action: 'ready' });
  else if (can) steps.push({ part: 'voice', action: 'install', script: 'scripts/setup-voice.sh', what: 'installing ffmpeg, espeak-ng and pocketsphinx (about 20 s, once)' });
  else steps.push({ part: 'voice', action: 'skip', line: `voice suites skipped: ${status.voice.reason ?? 'not installed'}. To run them, ${HOW.voice}` });
  if (status.tools.ready) steps.push({ part: 'tools', action: 'ready' });
  else if (can) steps.push({ part: 'tools', action: 'install', script: 'scripts/setup-cli-tools.sh', what: 'installing zsh, fish and systemd-analyze for the command-line tests (about 20 s, once)' });
  else steps.push({ part: 'tools', action: 'skip', line: `shell completion and unit-file tests skipped: ${status.tools.reason ?? 'not installed'}. To run them, ${HOW.tools}` });
  if (status.browser.ready) steps.push({ part: 'browser', action: 'ready' });
  else if (can) steps.push({ part: 'browser', action: 'install', script: 'scripts/setup-browser.sh', what: 'installing Debian\'s chromium for the console\'s browser tests (once)' });
  else steps.push({ part: 'browser', action: 'skip', line: `browser suites skipped: ${status.browser.reason ?? 'no chromium'}. To run them, ${HOW.browser}` });
  if (status.caldav.ready) steps.push({ part: 'caldav', action: 'ready' });
  else if (can) steps.push({ part: 'caldav', action: 'install', script: 'scripts/setup-caldav.sh', what: 'installing radicale, xandikos, python3-caldav and the recurrence oracle for the calendar tests (about 10 s, once)' });
  else steps.push({ part: 'caldav', action: 'skip', line: `calendar suites skipped: ${status.caldav.reason ?? 'not installed'}. To run them, ${HOW.caldav}` });
  return steps;
}
