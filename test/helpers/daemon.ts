// The real daemon as a child process (`node dist/main.js start`, run `npm run build` first), for crash tests,
// and a check that a chat completion request is well-formed (every tool call answered, no orphan result).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RecordedRequest } from '../fakes/openai-server.js';

export const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

export interface Daemon {
  child: ChildProcess;
  stderr: () => string;
  exited: Promise<number | null>;
  ready: Promise<void>;
  kill9(): Promise<void>;
  /** SIGTERM; resolves with the exit code. */
  term(): Promise<number | null>;
}

export function startDaemon(dir: string, env: Record<string, string>): Daemon {
  const child = spawn(process.execPath, [MAIN, 'start', '--config', path.join(dir, 'config.yaml')], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: dir, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  let onReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    onReady = resolve;
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    if (stderr.includes('familiar is ready')) onReady();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child, exited, ready,
    stderr: () => stderr,
    async kill9() {
      child.kill('SIGKILL');
      await exited;
    },
    async term() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

export function alive(daemon: Daemon): boolean {
  return daemon.child.exitCode === null && daemon.child.signalCode === null;
}

export async function waitUntil<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs: number, what: string): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * What would make a provider refuse this request: an assistant tool call not followed by its result, or a
 * tool result with no call before it. Empty when the request is well-formed.
 */
export function requestProblems(request: RecordedRequest): string[] {
  const problems: string[] = [];
  const messages = request.body.messages;
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index];
    if (!message) continue;
    if (message.role === 'tool') {
      problems.push(`message ${index}: a tool result without a call before it`);
      continue;
    }
    if (message.role !== 'assistant' || !message.tool_calls?.length) continue;
    const results: string[] = [];
    while (messages[index + 1]?.role === 'tool') {
      index += 1;
      results.push(messages[index]?.tool_call_id ?? '');
    }
    const calls = message.tool_calls.map((call) => call.id);
    if ([...calls].sort().join() !== [...results].sort().join()) problems.push(`message ${index}: calls ${calls.join()} answered by ${results.join()}`);
  }
  return problems;
}

/** The last user message's text of a request. */
export function lastUserText(request: RecordedRequest): string {
  const content = request.body.messages.filter((message) => message.role === 'user').at(-1)?.content;
  return typeof content === 'string' ? content : '';
}
