import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadedConfig } from '../config/load.js';
import { errorMessage } from '../errors.js';
import { seedFolder } from '../config/seed-folders.js';
import { narrowPrivatePaths } from './private-files.js';

/** One thing `familiar doctor --fix` did, or tried and could not. */
export interface FixLine {
  status: 'fixed' | 'failed';
  text: string;
}

export interface FixDeps {
  /** Where the sandbox image build writes its progress (the terminal's stderr). */
  progress: NodeJS.WritableStream;
}

/** Familiar's own files (docker/sandbox, scripts/), at the package root from src/ops or dist/ops or dist/bundle. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * `familiar doctor --fix`: what is safe to do without asking, before the checks run (so they report the result).
 * Nothing is deleted or overwritten: a missing folder is created (memory and skills from Familiar's starter copies,
 * as their first use would), the person's data and secrets other accounts could reach are narrowed to their owner
 * (folders 0700, files 0600), a config file others may write is made theirs to read only, and a missing Familiar
 * sandbox image is built when an engine answers. What is fine is left alone and not mentioned.
 */
export async function fixWhatIsSafe(loaded: LoadedConfig, deps: FixDeps): Promise<FixLine[]> {
  const lines: FixLine[] = [];
  const attempt = (what: string, fix: () => string | undefined): void => {
    try {
      const done = fix();
      if (done !== undefined) lines.push({ status: 'fixed', text: done });
    } catch (error) {
      lines.push({ status: 'failed', text: `${what}: ${errorMessage(error)}` });
    }
  };
  const { config } = loaded;

  attempt(`data_dir ${config.data_dir}`, () => {
    if (existsSync(config.data_dir)) return undefined;
    mkdirSync(config.data_dir, { recursive: true, mode: 0o700 });
    return `created data_dir ${config.data_dir}`;
  });
  for (const [key, kind, dir] of [['memory_dir', 'memory', config.memory_dir], ['skills_dir', 'skills', config.skills_dir]] as const) {
    attempt(`${key} ${dir}`, () => {
      const outcome = seedFolder(kind, dir);
      if (outcome === 'exists') return undefined;
      return outcome === 'seeded' ? `created ${key} ${dir} from Familiar's ${kind === 'memory' ? 'starter memory' : 'bundled skills'}` : `created ${key} ${dir}`;
    });
  }

  // The data folder, the database, the log, memory and .env: the person's alone (0700 folders, 0600 files).
  lines.push(...narrowPrivatePaths(loaded));
  if (loaded.source === 'file') {
    // A config others can write lets them change who may talk to the assistant; one with a secret written in it
    // (not a ${NAME} reference) is a secrets file too.
    const text = readFileSync(loaded.path, 'utf8');
    const holdsSecret = loaded.secrets.some((secret) => secret.length >= 8 && text.includes(secret));
    attempt(loaded.path, () => (holdsSecret ? narrow(loaded.path, 0o077, 0o600, 'a secret is written in it') : narrow(loaded.path, 0o022, undefined, 'others could change it')));
  }

  const sandbox = config.tools.sandbox;
  if (sandbox) {
    const built = await buildSandboxImage(sandbox.image, sandbox.docker_host, deps.progress);
    if (built) lines.push(built);
  }
  return lines;
}

/** Takes the `bits` off a file we own; undefined when none was set. `exact` sets that mode instead. */
function narrow(file: string, bits: number, exact: number | undefined, why: string): string | undefined {
  const stat = statSync(file);
  const mode = stat.mode & 0o777;
  if ((mode & bits) === 0) return undefined;
  const uid = process.getuid?.();
  if (uid !== undefined && uid !== 0 && stat.uid !== uid) throw new Error(`mode ${mode.toString(8)} and owned by uid ${stat.uid}, not you: ask its owner to chmod it`);
  const next = exact ?? mode & ~bits;
  chmodSync(file, next);
  return `${file}: mode ${mode.toString(8)} → ${next.toString(8)} (${why})`;
}

/**
 * Builds Familiar's sandbox image when the engine answers and it is missing. Only an image named familiar-sandbox
 * (any tag) is built — another name is the person's own image, which we cannot know how to make. As root in a
 * checkout with debootstrap, scripts/build-sandbox-image.sh (no registry needed); else `docker build` of
 * docker/sandbox.
 */
async function buildSandboxImage(image: string, dockerHost: string | undefined, progress: NodeJS.WritableStream): Promise<FixLine | undefined> {
  const [{ default: DockerClass }, { createDockerClient }, { checkEngine }] = await Promise.all([
    import('dockerode'), import('../sandbox/docker-client.js'), import('../sandbox/part.js'),
  ]);
  let status;
  try {
    status = await checkEngine(createDockerClient(DockerClass, dockerHost), [image]);
  } catch (error) {
    return { status: 'failed', text: `sandbox image: ${errorMessage(error)}` };
  }
  if (status.success) return undefined;
  // No engine, or an image that cannot be inspected: nothing to build here; the check below says what to do.
  if (!status.error.includes('is missing')) return undefined;
  if (!/^familiar-sandbox(:[\w.-]+)?$/.test(image)) {
    return { status: 'failed', text: `sandbox image ${image} is missing and is not Familiar's (familiar-sandbox): pull or build it yourself` };
  }
  const script = path.join(ROOT, 'scripts', 'build-sandbox-image.sh');
  const useScript = process.getuid?.() === 0 && existsSync(script) && existsSync('/usr/sbin/debootstrap');
  const dockerfile = path.join(ROOT, 'docker', 'sandbox');
  if (!useScript && !existsSync(path.join(dockerfile, 'Dockerfile'))) {
    return { status: 'failed', text: `sandbox image ${image} is missing and ${dockerfile}/Dockerfile is not in this installation: build it from a checkout` };
  }
  const [command, args] = useScript ? ['bash', [script, image]] : ['docker', ['build', '-t', image, dockerfile]];
  progress.write(`Building the sandbox image ${image}: ${command} ${args.join(' ')}\n`);
  const env = dockerHost ? { ...process.env, DOCKER_HOST: dockerHost } : process.env;
  const code = await new Promise<number | string>((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    child.stdout.pipe(progress, { end: false });
    child.stderr.pipe(progress, { end: false });
    child.on('error', (error) => resolve(errorMessage(error)));
    child.on('close', (exit) => resolve(exit ?? 1));
  });
  return code === 0
    ? { status: 'fixed', text: `built the sandbox image ${image} (${useScript ? 'scripts/build-sandbox-image.sh' : 'docker build'})` }
    : { status: 'failed', text: `building the sandbox image ${image} failed (${typeof code === 'number' ? `exit ${code}` : code}); its output is above` };
}
