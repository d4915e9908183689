// Vitest's global set-up: makes the machine ready for the suites that use real parts, so that `npm install &&
// npm test` passes on a fresh Debian machine with nothing run before it. Already ready: one line, in tens of
// milliseconds. Missing and installable here (root or passwordless sudo, Debian): runs the idempotent scripts in
// scripts/ with their output in a log file, one line per step. Not installable: one line per part saying what to
// install, and those suites skip — except with CI=true, where a missing part fails the run.
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { checkMachine, machineCapability, planSetup, ROOT, type Step } from './parts.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The lines the set-up printed for parts it could not provide (the suites then skip without repeating them). */
    familiarSetupSkipped: string[];
  }
}

const say = (line: string): void => {
  process.stdout.write(`test set-up: ${line}\n`);
};

export default async function setup(project: TestProject): Promise<void> {
  const started = performance.now();
  if (process.env.FAMILIAR_TEST_SETUP === 'skip') {
    say('FAMILIAR_TEST_SETUP=skip: not checking Docker, the mail servers, the voice engines, the shells or the browser');
    project.provide('familiarSetupSkipped', []);
    return;
  }
  const capability = machineCapability();
  const steps = planSetup(await checkMachine(), capability);
  if (steps.every((step) => step.action === 'ready')) {
    say(`Docker engine, sandbox image, mail servers, voice engines, zsh, fish, systemd-analyze, chromium and the CalDAV servers are ready (${Math.round(performance.now() - started)} ms)`);
    project.provide('familiarSetupSkipped', []);
    return;
  }
  const logDir = path.join(os.tmpdir(), 'familiar-test-setup');
  mkdirSync(logDir, { recursive: true });
  const failed = new Set<string>();
  for (const step of steps.filter((entry): entry is Extract<Step, { action: 'install' }> => entry.action === 'install')) {
    // The image needs the engine: when starting it failed, building is pointless (the engine's line says why).
    if (step.part === 'image' && failed.has('docker')) continue;
    const log = path.join(logDir, `${step.part}.log`);
    const stepStarted = performance.now();
    say(`${step.what} … (log: ${log})`);
    const code = await runScript(step.script, log, capability.privileged && process.getuid?.() !== 0);
    if (code === 0) say(`${step.part}: done in ${((performance.now() - stepStarted) / 1000).toFixed(1)} s`);
    else {
      failed.add(step.part);
      say(`${step.part}: ${step.script} failed (exit ${code}); its last lines:\n${tail(log, 15)}`);
    }
  }
  // What is still missing after the scripts: said once here; the suites skip (or, in CI, the run fails).
  const after = planSetup(await checkMachine(), { ...capability, privileged: false });
  const skipped = after.flatMap((step) => (step.action === 'skip' ? [step.line] : []));
  for (const line of skipped) say(line);
  if (skipped.length === 0) say(`ready after ${((performance.now() - started) / 1000).toFixed(1)} s`);
  if (skipped.length > 0 && process.env.CI === 'true') {
    throw new Error(`CI=true needs every part the suites use; missing:\n${skipped.join('\n')}`);
  }
  project.provide('familiarSetupSkipped', skipped);
}

function runScript(script: string, log: string, sudo: boolean): Promise<number | null> {
  const out = openSync(log, 'w');
  const command = sudo ? ['sudo', '-n', 'bash', script] : ['bash', script];
  return new Promise((resolve) => {
    const child = spawn(command[0] ?? 'bash', command.slice(1), { cwd: ROOT, stdio: ['ignore', out, out] });
    child.on('error', () => resolve(127));
    child.on('close', (code) => {
      closeSync(out);
      resolve(code);
    });
  });
}

function tail(file: string, lines: number): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).map((line) => `  | ${line}`).join('\n');
  } catch {
    return '  | (no log)';
  }
}
