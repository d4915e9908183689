// Docker for tests: whether an engine and the sandbox image are there, a `describeDocker` that skips
// (or, in CI, fails) without them, and small dockerode helpers.
//
// Set-up: `npm test` does it (test/setup/global-setup.ts runs scripts/setup-docker.sh and build-sandbox-image.sh).
import { PassThrough } from 'node:stream';
import Docker from 'dockerode';
import { describe, inject, it } from 'vitest';

/** The image the tests run: built by scripts/build-sandbox-image.sh (it tags familiar-sandbox:test). */
export const TEST_IMAGE = 'familiar-sandbox:test';

/** Label put on every container a test creates, so leftovers can be found and removed. */
export const TEST_LABEL = 'familiar.test';

export type DockerStatus = { available: true } | { available: false; reason: string };

const FIX = 'run: bash scripts/setup-docker.sh && bash scripts/build-sandbox-image.sh';

function describeError(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    return code && !err.message.includes(code) ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A dockerode client with dockerode's defaults (DOCKER_HOST, else /var/run/docker.sock). */
export function dockerClient(): Docker {
  return new Docker();
}

/**
 * Pings the engine (short timeout) and checks that `image` exists.
 * Never throws: when something is missing, `reason` says what and how to fix it.
 */
export async function dockerStatus(image: string = TEST_IMAGE, timeoutMs = 3000): Promise<DockerStatus> {
  const where = process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock';
  let client: Docker;
  try {
    client = new Docker({ timeout: timeoutMs });
  } catch (err) {
    return { available: false, reason: `cannot configure a Docker client (${describeError(err)}); ${FIX}` };
  }
  try {
    await withTimeout(client.ping(), timeoutMs, 'ping');
  } catch (err) {
    return {
      available: false,
      reason: `no Docker engine answers at ${where} (${describeError(err)}); ${FIX}`,
    };
  }
  try {
    await withTimeout(client.getImage(image).inspect(), timeoutMs, 'image inspect');
  } catch (err) {
    const status = (err as { statusCode?: number }).statusCode;
    const what = status === 404 ? 'is missing' : `cannot be inspected (${describeError(err)})`;
    return {
      available: false,
      reason: `the Docker engine answers but the image ${image} ${what}; run: bash scripts/build-sandbox-image.sh`,
    };
  }
  return { available: true };
}

/** The engine and test image status, checked once per test file (top-level await). */
export const docker: DockerStatus = await dockerStatus();

const inCI = process.env.CI === 'true';
let warned = false;

/**
 * `describe` for tests that need the engine and TEST_IMAGE. Without them it skips the suite (printing
 * the reason once per file) — except when CI=true, where it registers one failing test instead.
 */
export function describeDocker(name: string, fn: () => void): void {
  if (!docker.available && inCI) {
    const reason = docker.reason;
    describe(name, () => {
      it('needs a Docker engine and the sandbox image', () => {
        throw new Error(`Docker is required in CI but unavailable: ${reason}`);
      });
    });
    return;
  }
  // The global set-up (test/setup/global-setup.ts) already printed one line for what it could not provide.
  if (!docker.available && !warned && inject('familiarSetupSkipped').length === 0) {
    warned = true;
    console.warn(`[docker tests skipped] ${docker.reason}`);
  }
  describe.skipIf(!docker.available)(name, fn);
}

export interface ExecResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

export interface ExecOptions {
  user?: string;
  workingDir?: string;
  env?: string[];
}

/** Runs `cmd` in a running container and returns its exit code and separated stdout/stderr. */
export async function execIn(
  client: Docker,
  container: Docker.Container,
  cmd: string[],
  options: ExecOptions = {},
): Promise<ExecResult> {
  const exec = await container.exec({
    Cmd: cmd,
    AttachStdout: true,
    AttachStderr: true,
    ...(options.user !== undefined ? { User: options.user } : {}),
    ...(options.workingDir !== undefined ? { WorkingDir: options.workingDir } : {}),
    ...(options.env !== undefined ? { Env: options.env } : {}),
  });
  const stream = await exec.start({ hijack: true, stdin: false });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on('data', (chunk: Buffer) => out.push(chunk));
  stderr.on('data', (chunk: Buffer) => err.push(chunk));
  client.modem.demuxStream(stream, stdout, stderr);
  await new Promise<void>((resolve, reject) => {
    stream.on('end', () => resolve());
    stream.on('close', () => resolve());
    stream.on('error', reject);
  });
  // The stream can end a moment before the engine records the exit code.
  let info = await exec.inspect();
  for (let i = 0; info.Running && i < 50; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    info = await exec.inspect();
  }
  return {
    exitCode: info.ExitCode ?? null,
    stdout: Buffer.concat(out).toString('utf8'),
    stderr: Buffer.concat(err).toString('utf8'),
  };
}

/** Force-removes every container carrying TEST_LABEL (leftovers of crashed test runs). */
export async function removeTestContainers(client: Docker): Promise<number> {
  const leftovers = await client.listContainers({ all: true, filters: { label: [TEST_LABEL] } });
  await Promise.all(leftovers.map((c) => client.getContainer(c.Id).remove({ force: true }).catch(() => undefined)));
  return leftovers.length;
}
