import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { checkMachine, planSetup, ROOT, type Capability, type MachineStatus } from './parts.js';

const ready = { ready: true };
const allReady: MachineStatus = { docker: ready, image: ready, mail: ready, voice: ready, tools: ready, browser: ready, caldav: ready };
const rootDebian: Capability = { privileged: true, debian: true, remoteEngine: false };
const user: Capability = { privileged: false, debian: true, remoteEngine: false };
const isRoot = process.getuid?.() === 0;

describe('the test set-up plans what the machine lacks', () => {
  it.skipIf(!isRoot)('does nothing when everything is there', () => {
    expect(planSetup(allReady, rootDebian).map((step) => step.action)).toEqual(['ready', 'ready', 'ready', 'ready', 'ready', 'ready', 'ready']);
  });

  it('as root on Debian, installs what is missing, in order', () => {
    const steps = planSetup({ docker: { ready: false, reason: 'no engine' }, image: { ready: false }, mail: { ready: false, reason: 'no dovecot' }, voice: { ready: false, reason: 'no ffmpeg' }, tools: { ready: false, reason: 'zsh not installed' }, browser: { ready: false, reason: 'no chromium' }, caldav: { ready: false, reason: 'no radicale' } }, rootDebian);
    expect(steps.map((step) => (step.action === 'install' ? step.script : step.action))).toEqual(['scripts/setup-docker.sh', 'scripts/build-sandbox-image.sh', 'scripts/setup-mail.sh', 'scripts/setup-voice.sh', 'scripts/setup-cli-tools.sh', 'scripts/setup-browser.sh', 'scripts/setup-caldav.sh']);
  });

  it('rebuilds an image left by an older build script', () => {
    const steps = planSetup({ ...allReady, image: { ready: false, reason: 'older' } }, rootDebian);
    expect(steps[1]).toMatchObject({ part: 'image', action: 'install' });
  });

  it('without root: one line per part saying what to install, nothing run', () => {
    const steps = planSetup({ docker: { ready: false, reason: 'no Docker engine answers at unix:///var/run/docker.sock' }, image: { ready: false }, mail: { ready: false, reason: 'Dovecot/Postfix are not installed' }, voice: { ready: false, reason: 'ffmpeg, espeak-ng and pocketsphinx are not installed' }, tools: ready, browser: { ready: false, reason: "Debian's chromium is not installed (no /usr/bin/chromium)" }, caldav: ready }, user);
    expect(steps.map((step) => step.action)).toEqual(['skip', 'skip', 'skip', 'ready', 'skip', 'ready']);
    expect(steps[0]).toMatchObject({ line: expect.stringMatching(/^Docker suites skipped: no Docker engine answers at unix:\/\/\/var\/run\/docker\.sock\. To run them, install and start a Docker engine \(Debian: apt-get install docker\.io/) });
    expect(steps[1]).toMatchObject({ line: expect.stringMatching(/^mail suites skipped: Dovecot\/Postfix are not installed\. To run them, as root on Debian: sudo bash scripts\/setup-mail\.sh/) });
    expect(steps[2]).toMatchObject({ line: expect.stringMatching(/^voice suites skipped: ffmpeg, espeak-ng and pocketsphinx are not installed\. To run them, as root on Debian: sudo bash scripts\/setup-voice\.sh/) });
    expect(steps[4]).toMatchObject({ line: expect.stringMatching(/^browser suites skipped: Debian's chromium is not installed \(no \/usr\/bin\/chromium\)\. To run them, as root on Debian: sudo bash scripts\/setup-browser\.sh/) });
  });

  it('without root and without the shells: one line naming them and the script', () => {
    const steps = planSetup({ ...allReady, tools: { ready: false, reason: 'zsh, fish not installed' } }, user);
    expect(steps.find((step) => step.part === 'tools')).toMatchObject({ part: 'tools', action: 'skip', line: 'shell completion and unit-file tests skipped: zsh, fish not installed. To run them, sudo bash scripts/setup-cli-tools.sh (apt-get install zsh fish systemd)' });
  });

  it('an engine that answers but an image it cannot build: says how to build it', () => {
    const steps = planSetup({ ...allReady, image: { ready: false, reason: 'the image familiar-sandbox:test is missing' } }, user);
    expect(steps[1]).toMatchObject({ action: 'skip', line: expect.stringMatching(/the image familiar-sandbox:test is missing\. To run them, build it as root: sudo bash scripts\/build-sandbox-image\.sh/) });
  });

  it('not on Debian: nothing is installed, even as root', () => {
    const steps = planSetup({ docker: { ready: false, reason: 'none' }, image: { ready: false }, mail: { ready: false, reason: 'none' }, voice: { ready: false, reason: 'none' }, tools: ready, browser: { ready: false, reason: 'none' }, caldav: { ready: false, reason: 'none' } }, { ...rootDebian, debian: false });
    expect(steps.every((step) => step.action !== 'install')).toBe(true);
  });

  it('a DOCKER_HOST that does not answer is reported, not replaced by a local engine', async () => {
    const saved = process.env.DOCKER_HOST;
    process.env.DOCKER_HOST = 'tcp://127.0.0.1:9';
    try {
      const status = await checkMachine(1000);
      expect(status.docker).toEqual({ ready: false, reason: 'no Docker engine answers at tcp://127.0.0.1:9' });
      expect(planSetup(status, { ...rootDebian, remoteEngine: true })[0]).toMatchObject({ part: 'docker', action: 'skip' });
    } finally {
      if (saved === undefined) delete process.env.DOCKER_HOST;
      else process.env.DOCKER_HOST = saved;
    }
  });
});

describe('npm test on a machine without the parts (a Docker engine that does not answer)', () => {
  const vitest = (env: Record<string, string>) => new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', 'test/sandbox/docker-engine.test.ts'], {
      cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? ROOT, DOCKER_HOST: 'tcp://127.0.0.1:9', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) => resolve({ code, output }));
  });

  it('skips the Docker suites with one line saying what to install, and passes', async () => {
    const result = await vitest({});
    expect(result.code, result.output).toBe(0);
    expect(result.output.match(/Docker suites skipped/g)).toHaveLength(1);
    expect(result.output).toMatch(/test set-up: Docker suites skipped: no Docker engine answers at tcp:\/\/127\.0\.0\.1:9\. To run them, install and start a Docker engine/);
    expect(result.output).toMatch(/skipped/);
  }, 120_000);

  it('fails the run under CI=true', async () => {
    const result = await vitest({ CI: 'true' });
    expect(result.code).not.toBe(0);
    expect(result.output).toMatch(/CI=true needs every part the suites use; missing:\nDocker suites skipped/);
  }, 120_000);
});
