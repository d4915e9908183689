import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { errorMessage } from '../errors.js';
import type { ToolResult } from '../tools/types.js';
import { scriptResult } from './script-result.js';

const STDOUT_MAX_BYTES = 1024 * 1024;
const STDERR_MAX_BYTES = 64 * 1024;
/** The programs a script may need, and nothing from the daemon's own environment. */
const PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export interface HostRun {
  name: string;
  file: string;
  /** The script as it was loaded (and listed): a script changed since is not run. */
  sha256: string;
  params: Record<string, unknown>;
  timeoutMs: number;
  conversationId: string;
  signal: AbortSignal;
  /** `tools.scripts.NAME.env`: the only variables beyond the basic ones. */
  env: Readonly<Record<string, string>>;
  timeZone: string;
}

/**
 * Runs a script tool on the host: its own process group (killed whole on timeout or cancel), the arguments as JSON on
 * stdin, in the script's folder, with a clean environment. Contract: never throws.
 */
export async function runOnHost(run: HostRun): Promise<ToolResult> {
  let current: string;
  try {
    current = createHash('sha256').update(readFileSync(run.file)).digest('hex');
  } catch (error) {
    return { success: false, output: `${run.name}'s script cannot be read (${errorMessage(error)}); tell the person.` };
  }
  if (current !== run.sha256) {
    return { success: false, output: `${run.name}'s script changed since it was loaded and is not run until the tools are reloaded (a moment, or familiar start again); try again shortly.` };
  }
  const env: Record<string, string> = {
    PATH, HOME: homedir(), LANG: 'C.UTF-8', TZ: run.timeZone,
    FAMILIAR_TOOL: run.name, FAMILIAR_CONVERSATION: run.conversationId,
    ...run.env,
  };
  // Loaded on the first script run: child processes are no part of a daemon's start.
  const { spawn } = await import('node:child_process');
  return new Promise<ToolResult>((resolve) => {
    let stdout = Buffer.alloc(0);
    let stderr = Buffer.alloc(0);
    let dropped = 0;
    let timedOut = false;
    let cancelled = false;
    const child = spawn(run.file, [], { cwd: path.dirname(run.file), env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, run.timeoutMs);
    const onAbort = () => {
      cancelled = !timedOut;
      killGroup();
    };
    if (run.signal.aborted) onAbort();
    else run.signal.addEventListener('abort', onAbort, { once: true });
    const done = (result: ToolResult) => {
      clearTimeout(timer);
      run.signal.removeEventListener('abort', onAbort);
      resolve(result);
    };
    child.stdout.on('data', (chunk: Buffer) => {
      const room = STDOUT_MAX_BYTES - stdout.length;
      if (room > 0) stdout = Buffer.concat([stdout, chunk.subarray(0, room)]);
      dropped += Math.max(0, chunk.length - Math.max(room, 0));
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < STDERR_MAX_BYTES) stderr = Buffer.concat([stderr, chunk.subarray(0, STDERR_MAX_BYTES - stderr.length)]);
    });
    // A script that does not read its arguments closes stdin early: not an error.
    child.stdin.on('error', () => undefined);
    child.on('error', (error) => done({ success: false, output: `${run.name}'s script could not be started (${errorMessage(error)}); tell the person.` }));
    child.on('close', (code) => {
      done(scriptResult(run.name, {
        exitCode: code, stdout: stdout.toString('utf8'), stderr: stderr.toString('utf8'), stdoutDropped: dropped,
        timedOut, cancelled, timeoutMs: run.timeoutMs,
      }));
    });
    child.stdin.end(JSON.stringify(run.params));
  });
}
