
export interface RunRequest {
  /** The program (a name looked up on PATH, or a path) and its arguments: no shell is involved. */
  program: string;
  args: readonly string[];
  /** A private folder of this job: the working directory, HOME and TMPDIR of the child. */
  cwd: string;
  stdin?: string | Buffer;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** The child is killed when its stdout passes this. */
  maxStdoutBytes: number;
}

export interface RunOutcome {
  code: number | null;
  stdout: Buffer;
  /** The end of stderr (for the reason of a failure). */
  stderr: string;
  timedOut: boolean;
  cancelled: boolean;
  /** stdout passed `maxStdoutBytes` and the child was killed. */
  overflow: boolean;
}

const STDERR_KEEP = 4000;

/**
 * Runs a local engine (ffmpeg, a recogniser, a synthesiser) with a minimal environment: PATH, a private HOME and
 * TMPDIR, a UTF-8 locale — no secret of the daemon, no token, no key. Nothing the person or the model wrote is ever an
 * argument: text goes on stdin, files by paths this part chose. The child leads its own process group, so a
 * timeout, a cancel or a flood of output kills whatever it started too.
 * Contract: rejects only when the program cannot be started (ENOENT, EACCES); every other end is an outcome.
 */
export async function runProgram(request: RunRequest): Promise<RunOutcome> {
  // Loaded on the first voice note: child processes are no part of a daemon's start.
  const { spawn } = await import('node:child_process');
  return new Promise((resolve, reject) => {
    const child = spawn(request.program, [...request.args], {
      cwd: request.cwd,
      env: { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', HOME: request.cwd, TMPDIR: request.cwd, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    let timedOut = false;
    let cancelled = false;
    let overflow = false;
    let settled = false;
    const kill = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, request.timeoutMs);
    const onAbort = (): void => {
      cancelled = true;
      kill();
    };
    if (request.signal?.aborted) onAbort();
    request.signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (): void => {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
    };
    child.stdout.on('data', (chunk: Buffer) => {
      if (overflow) return;
      size += chunk.length;
      if (size > request.maxStdoutBytes) {
        overflow = true;
        kill();
        return;
      }
      chunks.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_KEEP);
    });
    // A program that does not read its stdin closes it early: that is not a failure of the run.
    child.stdin.on('error', () => undefined);
    child.on('error', (error) => {
      finish();
      if (settled) return;
      settled = true;
      reject(error);
    });
    child.on('close', (code) => {
      finish();
      if (settled) return;
      settled = true;
      resolve({ code, stdout: Buffer.concat(chunks), stderr, timedOut, cancelled, overflow });
    });
    child.stdin.end(request.stdin ?? '');
  });
}

/** The last meaningful line of a program's stderr, for a one-line reason. */
export function lastLine(stderr: string): string {
  const lines = stderr.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '');
  return (lines.at(-1) ?? '').slice(0, 300);
}
