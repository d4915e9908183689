import type Docker from 'dockerode';
import type { App, DoctorLine } from '../app.js';
import { errorMessage } from '../errors.js';
import type { Installer } from '../modules.js';
import { createDockerClient, describeDocker } from './docker-client.js';
import type { SandboxConfig } from './pool.js';

const PING_TIMEOUT_MS = 3000;

export type EngineStatus = { ok: true } | { ok: false; reason: string };

/** How to get the image, said wherever it is missing. */
export function buildHint(image: string): string {
  return `build it with: bash scripts/build-sandbox-image.sh ${image} (no registry needed), or docker build -t ${image} docker/sandbox`;
}

/** Pings the engine and checks the images. Contract: never throws; `reason` says what to fix. */
export async function checkEngine(docker: Docker, images: readonly string[]): Promise<EngineStatus> {
  const where = describeDocker(docker);
  try {
    await withTimeout(docker.ping(), PING_TIMEOUT_MS);
  } catch (error) {
    return { ok: false, reason: `no Docker engine answers at ${where} (${errorMessage(error)}); start one (on Debian: bash scripts/setup-docker.sh) or set tools.sandbox.docker_host` };
  }
  for (const image of images) {
    try {
      await withTimeout(docker.getImage(image).inspect(), PING_TIMEOUT_MS);
    } catch (error) {
      const missing = (error as { statusCode?: number }).statusCode === 404;
      return { ok: false, reason: missing ? `the image ${image} is missing; ${buildHint(image)}` : `the image ${image} cannot be inspected at ${where} (${errorMessage(error)})` };
    }
  }
  return { ok: true };
}

/**
 * The sandbox: when `tools.sandbox` is configured and the engine answers with the image present, sets
 * `app.context.pool`, registers sandbox_exec, the file tools and opencode, and adds the module that
 * cleans up leftovers, keeps containers warm and removes them all on shutdown. dockerode is loaded
 * only here, so a daemon without a sandbox does not pay for it at start.
 */
export const installSandbox: Installer = async (app: App) => {
  const config = app.config.tools.sandbox;
  const log = app.log.child({ component: 'sandbox' });
  if (!config) {
    log.info('sandbox: tools.sandbox is not configured; sandbox_exec, the file tools and opencode are off');
    return;
  }
  const { default: DockerClass } = await import('dockerode');
  let docker: Docker;
  try {
    docker = createDockerClient(DockerClass, config.docker_host);
  } catch (error) {
    log.warn(`sandbox: tools.sandbox.docker_host is not usable (${errorMessage(error)}); the sandbox tools are off`);
    return;
  }
  const doctor = (): Promise<DoctorLine[]> => sandboxDoctor(docker, config);
  const status = await checkEngine(docker, [config.image]);
  if (!status.ok) {
    log.warn(`sandbox: ${status.reason}; the sandbox tools are off until then`);
    app.modules.push({ name: 'sandbox', doctor });
    return;
  }
  if (config.code_agent?.image && config.code_agent.image !== config.image) {
    const agentImage = await checkEngine(docker, [config.code_agent.image]);
    if (!agentImage.ok) {
      log.warn(`sandbox: code_agent: ${agentImage.reason}; opencode is off`);
      config.code_agent = undefined;
    }
  }
  // The pool and the tools are loaded only when the sandbox is on.
  const [{ ContainerPool }, { createSandboxTools }, { Workspaces }] = await Promise.all([import('./pool.js'), import('./tools.js'), import('./workspace.js')]);
  const workspaces = new Workspaces(app.config.data_dir, config.user, { limitMb: config.workspace_mb, log });
  const pool = new ContainerPool({ docker, config, dataDir: app.config.data_dir, workspaces, log });
  app.context.pool = pool;
  for (const tool of createSandboxTools(workspaces, config)) app.tools.register(tool);
  app.modules.push({
    name: 'sandbox',
    start: () => pool.start(),
    close: () => pool.close(),
    doctor,
  });
  log.info({ image: config.image, engine: describeDocker(docker), pool_size: config.pool_size, code_agent: config.code_agent !== undefined }, 'sandbox: ready');
};

async function sandboxDoctor(docker: Docker, config: SandboxConfig): Promise<DoctorLine[]> {
  const where = describeDocker(docker);
  const images = [config.image, ...(config.code_agent?.image ? [config.code_agent.image] : [])];
  const status = await checkEngine(docker, images);
  if (status.ok) return [{ status: 'ok', label: 'sandbox', detail: `Docker at ${where}; image ${images.join(', ')} present` }];
  return [{ status: 'fail', label: 'sandbox', detail: status.reason }];
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
