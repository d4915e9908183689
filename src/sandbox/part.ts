import type Docker from 'dockerode';
import type { Config } from '../config/schema.js';
import { AppError, errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type { Result } from '../lib/result.js';
import type { DoctorLine, Part } from '../part.js';
import type { SandboxAccess, SandboxRun } from '../tools/context.js';
import { createDockerClient, describeDocker } from './docker-client.js';
import type { ContainerPool, SandboxConfig } from './pool.js';
import { parseSandboxUser } from '../workspace/sandbox-user.js';
import type { Workspaces } from '../workspace/workspace.js';

const PING_TIMEOUT_MS = 3000;

/** How to get the image, said wherever it is missing. */
export function buildHint(image: string): string {
  return `build it with: bash scripts/build-sandbox-image.sh ${image} (no registry needed), or docker build -t ${image} docker/sandbox`;
}

/** Pings the engine and checks the images. Contract: never throws; `error` says what to fix. */
export async function checkEngine(docker: Docker, images: readonly string[]): Promise<Result> {
  const where = describeDocker(docker);
  try {
    await withTimeout(docker.ping(), PING_TIMEOUT_MS);
  } catch (error) {
    return { success: false, error: `no Docker engine answers at ${where} (${errorMessage(error)}); start one (on Debian: bash scripts/setup-docker.sh) or set tools.sandbox.docker_host` };
  }
  for (const image of images) {
    try {
      await withTimeout(docker.getImage(image).inspect(), PING_TIMEOUT_MS);
    } catch (error) {
      const missing = (error as { statusCode?: number }).statusCode === 404;
      return { success: false, error: missing ? `the image ${image} is missing; ${buildHint(image)}` : `the image ${image} cannot be inspected at ${where} (${errorMessage(error)})` };
    }
  }
  return { success: true, value: undefined };
}

/** The pool as its users see it: commands in a conversation's container, its workspace folders and settings. */
export interface Sandbox extends SandboxAccess {
  readonly workspaces: Workspaces;
  readonly config: SandboxConfig;
}

export interface SandboxPart {
  /** Undefined when the sandbox is off (no section; in the daemon, also no engine or no image). */
  sandbox?: Sandbox;
  part?: Part;
}

/**
 * The sandbox: when `tools.sandbox` is configured, sandbox_exec, the file tools and opencode, and a part that
 * removes leftovers, keeps containers warm and removes them all on shutdown.
 * - `probe: true` (the daemon) asks the engine now: without an answer or the image the daemon logs one line with
 *   the fix, and keeps the tools: each command asks the engine again until it answers (a daemon started at boot
 *   before dockerd, an image built after the start), and the file tools need no engine.
 * - `probe: false` (one-shot commands) asks nothing now: dockerode is loaded and the engine asked on the first
 *   command, whose failure says what to fix. Nothing starts (no warm containers, no clean-up of another
 *   process's containers); the containers a command made are removed when it closes.
 */
export async function createSandboxPart(deps: { config: Config; dataDir: string; log: Logger; probe: boolean }): Promise<SandboxPart> {
  const config = deps.config.tools.sandbox;
  const log = deps.log.child({ component: 'sandbox' });
  if (!config) {
    log.info('sandbox: tools.sandbox is not configured; sandbox_exec, the file tools and opencode are off');
    return {};
  }
  // The sandbox's own modules are loaded only when it is configured.
  const [{ Workspaces: WorkspacesClass }, { createSandboxTools }] = await Promise.all([import('../workspace/workspace.js'), import('./tools.js')]);
  const workspaces = new WorkspacesClass(deps.dataDir, config.user, { limitMb: config.workspace_mb, log });
  if (!deps.probe) {
    const sandbox = lazySandbox(config, workspaces, deps.dataDir, log, { daemon: false });
    return {
      sandbox,
      part: { name: 'sandbox', tools: createSandboxTools(workspaces, config), close: () => sandbox.close(), doctor: () => doctorFor(config) },
    };
  }
  const docker = await connect(config, log);
  if (!docker) return { part: { name: 'sandbox', doctor: () => doctorFor(config) } };
  const status = await checkEngine(docker, [config.image]);
  if (!status.success) {
    // Started before the engine (at boot), or the engine is slow under load: the tools stay, and each command asks
    // the engine again until it answers; the file tools need no engine.
    log.warn(`sandbox: ${status.error}; sandbox_exec says so until the engine answers (asked again on each command), the file tools work`);
    const sandbox = lazySandbox(config, workspaces, deps.dataDir, log, { daemon: true });
    return {
      sandbox,
      part: { name: 'sandbox', tools: createSandboxTools(workspaces, config), close: () => sandbox.close(), doctor: () => sandboxDoctor(docker, config) },
    };
  }
  let codeAgent = config.code_agent !== undefined;
  if (config.code_agent?.image && config.code_agent.image !== config.image) {
    const agentImage = await checkEngine(docker, [config.code_agent.image]);
    if (!agentImage.success) {
      log.warn(`sandbox: code_agent: ${agentImage.error}; opencode is off`);
      codeAgent = false;
    }
  }
  // The pool is loaded only when the sandbox is on.
  const { ContainerPool } = await import('./pool.js');
  const pool = new ContainerPool({ docker, config, dataDir: deps.dataDir, workspaces, log });
  log.info({ image: config.image, engine: describeDocker(docker), pool_size: config.pool_size, code_agent: codeAgent }, 'sandbox: ready');
  return {
    sandbox: pool,
    part: {
      name: 'sandbox',
      tools: createSandboxTools(workspaces, config, { codeAgent }),
      start: () => pool.start(),
      close: () => pool.close(),
      doctor: () => sandboxDoctor(docker, config),
    },
  };
}

async function connect(config: SandboxConfig, log: Logger): Promise<Docker | undefined> {
  const { default: DockerClass } = await import('dockerode');
  try {
    return createDockerClient(DockerClass, config.docker_host);
  } catch (error) {
    log.warn(`sandbox: tools.sandbox.docker_host is not usable (${errorMessage(error)}); the sandbox tools are off`);
    return undefined;
  }
}

/**
 * A pool made on the first command: the engine is asked then, and again after a failure. `daemon`: the pool is the
 * daemon's own (it removes every container of this data folder and keeps containers warm); else a one-shot
 * command's, which may run beside the daemon.
 */
function lazySandbox(config: SandboxConfig, workspaces: Workspaces, dataDir: string, log: Logger, options: { daemon: boolean }): Sandbox & { close(): Promise<void> } {
  let pool: Promise<ContainerPool> | undefined;
  const load = (): Promise<ContainerPool> => {
    pool ??= (async () => {
      const { default: DockerClass } = await import('dockerode');
      const docker = createDockerClient(DockerClass, config.docker_host);
      const status = await checkEngine(docker, [config.image]);
      if (!status.success) throw new AppError('SANDBOX_UNAVAILABLE', `the sandbox is not available: ${status.error}`);
      const { ContainerPool } = await import('./pool.js');
      // A one-shot command may run beside the daemon: it removes only its own containers and leaves the mounts.
      const made = new ContainerPool({ docker, config, dataDir, workspaces, log, exclusive: options.daemon });
      if (options.daemon) {
        await made.start();
        log.info({ image: config.image, engine: describeDocker(docker) }, 'sandbox: the engine answers now; ready');
      }
      return made;
    })();
    pool.catch(() => {
      pool = undefined;
    });
    return pool;
  };
  return {
    workspaces,
    config,
    async run(conversationId, request): Promise<SandboxRun> {
      return (await load()).run(conversationId, request);
    },
    async runOneOff(workspaceDir, request): Promise<SandboxRun> {
      return (await load()).runOneOff(workspaceDir, request);
    },
    async close() {
      const made = await pool?.catch(() => undefined);
      await made?.close();
    },
  };
}

function doctorFor(config: SandboxConfig): Promise<DoctorLine[]> {
  return (async () => {
    const { default: DockerClass } = await import('dockerode');
    let docker: Docker;
    try {
      docker = createDockerClient(DockerClass, config.docker_host);
    } catch (error) {
      return [{ status: 'fail' as const, label: 'sandbox', detail: `tools.sandbox.docker_host is not usable (${errorMessage(error)})`, fix: 'check tools.sandbox.docker_host' }];
    }
    return sandboxDoctor(docker, config);
  })();
}

async function sandboxDoctor(docker: Docker, config: SandboxConfig): Promise<DoctorLine[]> {
  const where = describeDocker(docker);
  const images = [config.image, ...(config.code_agent?.image ? [config.code_agent.image] : [])];
  const status = await checkEngine(docker, images);
  if (!status.success) return [{ status: 'fail', label: 'sandbox', detail: status.error }];
  return [{ status: 'ok', label: 'sandbox', detail: `Docker at ${where}; image ${images.join(', ')} present` }, ...guestDoctor(config)];
}

/**
 * The guest (guest.ts) is held by file modes: the sandbox user must own what the file tools write, which needs the
 * daemon to be root (it hands files over) or to run as that uid.
 */
function guestDoctor(config: SandboxConfig): DoctorLine[] {
  const uid = process.getuid?.();
  const owner = parseSandboxUser(config.user);
  if (uid === undefined || uid === 0 || owner?.uid === uid) return [];
  return [{
    status: 'warn', label: 'sandbox: outside content and your files',
    detail: `the daemon runs as uid ${uid} and the sandbox as ${config.user}, so files the file tools write are not the sandbox user's; a command in a turn that read outside content may delete them`,
    fix: `set tools.sandbox.user to "${uid}" (or run the daemon as root)`,
  }];
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
