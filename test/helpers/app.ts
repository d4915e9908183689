import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { stringify } from 'yaml';
import { createDaemon, type Daemon, type DaemonMode } from '../../src/daemon.js';
import { loadConfig } from '../../src/config/load.js';
import { createLlmClient } from '../../src/llm/client.js';
import { createLogger, type Logger } from '../../src/log.js';
import type { FakeOpenAI } from '../fakes/openai-server.js';
import type { Resolver } from '../../src/net/fetch-guarded.js';
import type { Part } from '../../src/part.js';

export interface TestApp {
  app: Daemon;
  dir: string;
  configPath: string;
  logs: string[];
  sleeps: number[];
  /** Builds a second app on the same folder (a restart). */
  restart(): Promise<Daemon>;
}

export function tempDir(prefix = 'familiar-test-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/** Writes a config.yaml pointing at the fake LLM, in a fresh folder, and returns its path. */
export function writeTestConfig(dir: string, fake: FakeOpenAI | undefined, overrides: Record<string, unknown> = {}): string {
  const { llm: llmOverrides, ...rest } = overrides as { llm?: Record<string, unknown> };
  const config = {
    timezone: 'Europe/Paris',
    data_dir: './data',
    memory_dir: './memory',
    skills_dir: './skills',
    log: { level: 'debug', format: 'json' },
    llm: { base_url: fake?.baseUrl ?? 'http://127.0.0.1:9/v1', api_key: '${TEST_LLM_KEY}', model: 'gpt-test', max_retries: 2, timeout_s: 10, ...llmOverrides },
    ...rest,
  };
  // Both folders exist, so the bundled starter memory and skills are not copied in (first use seeds only new folders).
  mkdirSync(path.join(dir, 'memory'), { recursive: true, mode: 0o700 });
  mkdirSync(path.join(dir, 'skills'), { recursive: true, mode: 0o700 });
  const file = path.join(dir, 'config.yaml');
  writeFileSync(file, stringify(config));
  return file;
}

export function captureLogger(lines: string[], secrets: readonly string[], level = 'trace'): Logger {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(chunk.toString());
      callback();
    },
  });
  return createLogger({ level, format: 'json', secrets, destination: stream });
}

/**
 * The daemon wired to a fake OpenAI server, with captured logs and recorded (not slept) retry delays. Built as
 * `familiar start` builds it (channels and the HTTP endpoint included, nothing started) unless `mode` says
 * `command`, as one-shot commands build it.
 */
export async function makeTestApp(fake: FakeOpenAI, overrides: Record<string, unknown> = {}, dir = tempDir(), options: { mode?: DaemonMode; parts?: Part[]; resolve?: Resolver; now?: () => Date; channelRetryMs?: number } = {}): Promise<TestApp> {
  const configPath = writeTestConfig(dir, fake, overrides);
  const logs: string[] = [];
  const sleeps: number[] = [];
  const build = async () => {
    const loaded = loadConfig({ configPath, env: { TEST_LLM_KEY: fake.apiKey } });
    const log = captureLogger(logs, loaded.secrets);
    const llm = createLlmClient({
      config: loaded.config.llm,
      log,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    return createDaemon({ loaded, log, llm, mode: options.mode ?? 'daemon', ...(options.parts ? { parts: options.parts } : {}), ...(options.resolve ? { resolve: options.resolve } : {}), ...(options.now ? { now: options.now } : {}), ...(options.channelRetryMs !== undefined ? { channelRetryMs: options.channelRetryMs } : {}) });
  };
  const app = await build();
  return { app, dir, configPath, logs, sleeps, restart: build };
}
