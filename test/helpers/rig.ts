// The rig for tests of the real daemon process (`node dist/main.js`, run `npm run build` first): the fake LLM and
// the fake Telegram, a folder with a config for them (OWNER allowed, plus the test's overrides), the daemons and
// one-shot commands run on that folder, and one close for all of it. `useProcessRig()` makes one per test and
// closes it after that test (daemons still running are killed), so a file keeps no lifecycle of its own.
// The in-process daemon's rig is startChannelRig (test/helpers/channels.ts).
import { execFile } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach } from 'vitest';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { startTelegramServer, type FakeTelegram } from '../fakes/telegram-server.js';
import { tempDir, writeTestConfig } from './app.js';
import { MAIN, alive, startDaemon, type Daemon } from './daemon.js';

export const OWNER = 1001;

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface ProcessRig {
  llm: FakeOpenAI;
  telegram: FakeTelegram;
  /** The folder of config.yaml (data and memory inside). */
  dir: string;
  /** `familiar start` on the folder; killed at close if still running. */
  start(): Daemon;
  /** `start()`, resolved once the daemon says it is ready; rejects with its stderr if it exits first. */
  started(): Promise<Daemon>;
  /** A one-shot `familiar ARGS --config …` on the folder, with the LLM key in its environment. */
  familiar(...args: string[]): Promise<CommandResult>;
  /** Kills the daemons still running and closes the fakes. */
  close(): Promise<void>;
}

/** The fakes and a folder whose config points at them; `overrides` are config keys merged over the defaults. */
export async function startProcessRig(overrides: Record<string, unknown> = {}, prefix = 'familiar-process-'): Promise<ProcessRig> {
  const llm = await startOpenAiServer();
  const telegram = await startTelegramServer();
  const dir = tempDir(prefix);
  writeTestConfig(dir, llm, {
    log: { level: 'info', format: 'json' },
    channels: { telegram: { token: telegram.token, api_root: telegram.apiRoot, allowed_users: [OWNER] } },
    ...overrides,
  });
  const daemons: Daemon[] = [];
  const start = (): Daemon => {
    const daemon = startDaemon(dir, { TEST_LLM_KEY: llm.apiKey });
    daemons.push(daemon);
    return daemon;
  };
  return {
    llm, telegram, dir, start,
    async started() {
      const daemon = start();
      await Promise.race([daemon.ready, daemon.exited.then((code) => { throw new Error(`daemon exited ${code}: ${daemon.stderr()}`); })]);
      return daemon;
    },
    familiar: (...args) => runFamiliar(dir, args, { TEST_LLM_KEY: llm.apiKey }),
    async close() {
      for (const daemon of daemons.splice(0)) if (alive(daemon)) await daemon.kill9();
      await Promise.all([llm.close(), telegram.close()]);
    },
  };
}

/**
 * Registers an afterEach that closes the rig the test made with `make()` (call it in the test, with the test's
 * overrides). Returns `make`.
 */
export function useProcessRig(): (overrides?: Record<string, unknown>) => Promise<ProcessRig> {
  const made: ProcessRig[] = [];
  afterEach(async () => {
    for (const rig of made.splice(0)) await rig.close();
  });
  return async (overrides) => {
    const rig = await startProcessRig(overrides);
    made.push(rig);
    return rig;
  };
}

/**
 * `node dist/main.js ARGS --config DIR/config.yaml` with only PATH, HOME (the folder) and `env`: a clean
 * environment, as a person's shell would not pass this one's test variables (nor NODE_EXTRA_CA_CERTS, 36 ms a
 * process). Never rejects: a failed command is its exit code and output.
 */
export function runFamiliar(dir: string, args: string[], env: Record<string, string> = {}): Promise<CommandResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN, ...args, '--config', path.join(dir, 'config.yaml')], {
      cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir, ...env }, timeout: 30_000,
    }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** A TCP port free on 127.0.0.1 just now, for a server the daemon will listen on. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
