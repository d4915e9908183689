import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';

/** One stream's capture: the first `cap` bytes are kept, the rest only counted. */
export class CappedBuffer {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  /** Every byte the stream produced, kept or not. */
  total = 0;

  constructor(private readonly cap: number) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.kept >= this.cap) return;
    const take = Math.min(chunk.length, this.cap - this.kept);
    // Copy: a slice would keep the whole socket chunk alive.
    this.chunks.push(Buffer.from(chunk.subarray(0, take)));
    this.kept += take;
  }

  get dropped(): number {
    return this.total - this.kept;
  }

  text(): string {
    return Buffer.concat(this.chunks, this.kept).toString('utf8');
  }
}

/**
 * Splits Docker's multiplexed attach stream (8-byte frame headers: stream type, 3 zero bytes, payload
 * length) into stdout and stderr while the bytes arrive, so output is capped as it streams and
 * never accumulates in memory beyond the caps.
 */
export class Demuxer {
  readonly stdout: CappedBuffer;
  readonly stderr: CappedBuffer;
  private readonly header = Buffer.alloc(8);
  private headerFill = 0;
  private remaining = 0;
  private target: CappedBuffer | undefined;

  constructor(capBytes: number) {
    this.stdout = new CappedBuffer(capBytes);
    this.stderr = new CappedBuffer(capBytes);
  }

  push(data: Buffer): void {
    let offset = 0;
    while (offset < data.length) {
      if (this.remaining === 0) {
        const take = Math.min(8 - this.headerFill, data.length - offset);
        data.copy(this.header, this.headerFill, offset, offset + take);
        this.headerFill += take;
        offset += take;
        if (this.headerFill < 8) return;
        this.headerFill = 0;
        this.remaining = this.header.readUInt32BE(4);
        // 1 = stdout, 2 = stderr (0 = stdin, never sent back).
        this.target = this.header[0] === 2 ? this.stderr : this.stdout;
        continue;
      }
      const take = Math.min(this.remaining, data.length - offset);
      this.target?.push(data.subarray(offset, offset + take));
      this.remaining -= take;
      offset += take;
    }
  }
}

export interface ExecRequest {
  cmd: string[];
  env?: string[];
  workingDir?: string;
  /** Who runs it (`uid:gid`); the container's user when unset. */
  user?: string;
  outputBytes: number;
  /** Aborting ends the wait at once; the caller kills the container (the API cannot kill one exec). */
  signal: AbortSignal;
}

export interface ExecOutcome {
  /** null when the process did not finish (killed with its container) or the engine lost it. */
  exitCode: number | null;
  stdout: CappedBuffer;
  stderr: CappedBuffer;
  aborted: boolean;
}

/** Runs one command in a running container. Contract: throws only when the exec cannot be created or started. */
export async function runExec(container: Docker.Container, request: ExecRequest): Promise<ExecOutcome> {
  const exec = await container.exec({
    Cmd: request.cmd,
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
    WorkingDir: request.workingDir ?? '/workspace',
    ...(request.user ? { User: request.user } : {}),
    ...(request.env && request.env.length > 0 ? { Env: request.env } : {}),
  });
  const stream = (await exec.start({ hijack: true, stdin: false })) as Duplex;
  const demuxer = new Demuxer(request.outputBytes);
  let aborted = request.signal.aborted;
  await new Promise<void>((resolve) => {
    const done = () => {
      request.signal.removeEventListener('abort', onAbort);
      resolve();
    };
    const onAbort = () => {
      aborted = true;
      stream.destroy();
      done();
    };
    if (aborted) return onAbort();
    request.signal.addEventListener('abort', onAbort, { once: true });
    stream.on('data', (chunk: Buffer) => demuxer.push(chunk));
    stream.once('end', done);
    stream.once('close', done);
    stream.once('error', done);
  });
  const outcome: ExecOutcome = { exitCode: null, stdout: demuxer.stdout, stderr: demuxer.stderr, aborted };
  if (aborted) return outcome;
  try {
    // The stream can end a moment before the engine records the exit code.
    let info = await exec.inspect();
    for (let attempt = 0; info.Running && attempt < 100; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      info = await exec.inspect();
    }
    outcome.exitCode = info.Running ? null : (info.ExitCode ?? null);
  } catch {
    // The container went away (killed by a timeout of another call in the same conversation).
  }
  return outcome;
}
