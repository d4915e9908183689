import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type Docker from 'dockerode';
import type { Config } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import { runExec, type CappedBuffer } from './exec.js';
import { prepareForGuest } from './guest.js';
import type { Workspaces } from '../workspace/workspace.js';

export type SandboxConfig = NonNullable<Config['tools']['sandbox']>;

export interface PoolOptions {
  docker: Docker;
  config: SandboxConfig;
  dataDir: string;
  workspaces: Workspaces;
  log: Logger;
  /**
   * True (the default) for the daemon, which owns the data folder's containers and mounts: its close removes every
   * container with its owner label and unmounts the workspaces. False for a one-shot command, which may run beside
   * the daemon: it removes only the containers it made and leaves the mounts alone.
   */
  exclusive?: boolean;
}

interface Box {
  container: Docker.Container;
  id: string;
  /** A warm container's private empty folder, bound at /workspace until a conversation takes it. */
  dir?: string;
}

interface Session {
  box: Box;
  conversationId: string;
  lastUsed: number;
  busy: number;
  /** The cgroup's oom_kill count last seen, to tell an OOM kill from another SIGKILL. */
  oomKills: number;
}

export interface RunRequest {
  command: string;
  timeoutMs: number;
  /** Run in a one-off container on a bridge network (the caller checks `allow_network`). */
  network?: boolean;
  /** Run as this `uid:gid`, after the sandbox user has prepared the workspace for it (guest.ts). */
  guest?: string;
  signal?: AbortSignal;
}

export interface OneOffRequest {
  cmd: string[];
  timeoutMs: number;
  image?: string;
  network: 'none' | 'bridge';
  /** Environment of this container only (a coding agent's API key). */
  env?: string[];
  guest?: string;
  signal?: AbortSignal;
}

export interface RunResult {
  exitCode: number | null;
  stdout: CappedBuffer;
  stderr: CappedBuffer;
  timedOut: boolean;
  cancelled: boolean;
  oomKilled: boolean;
}

export const LABEL = 'familiar.sandbox';
export const OWNER_LABEL = 'familiar.sandbox.owner';
const MIB = 1024 * 1024;

/**
 * Docker containers for the conversations' commands: `pool_size` warm containers wait, each with an empty
 * private folder bound at /workspace; a conversation's first call renames that folder to
 * `data_dir/workspaces/<conversation>` (a bind mount follows the folder, not its name), so the
 * container becomes that conversation's with no copy and no shared mount. A conversation whose
 * workspace already exists (file tools used first, idle reclaim, a timeout kill, a restart) gets a
 * container created on the spot with its folder bound. Idle containers are removed after `idle_s`.
 */
export class ContainerPool {
  readonly owner: string;
  readonly config: SandboxConfig;
  readonly workspaces: Workspaces;
  private readonly docker: Docker;
  private readonly log: Logger;
  private readonly exclusive: boolean;
  private readonly poolDir: string;
  private readonly warm: Box[] = [];
  private readonly sessions = new Map<string, Session>();
  /** Every container this pool created and has not removed: close() removes them all. */
  private readonly live = new Map<string, Docker.Container>();
  private creating = 0;
  /** Warm starts in flight: close() waits for them, or a container created just after it would be left behind. */
  private readonly filling = new Set<Promise<void>>();
  /** New conversations waiting for a warm container that is being created. */
  private readonly waiters: Array<(box: Box | undefined) => void> = [];
  private fillFailedAt = 0;
  private closed = false;
  private reaper: NodeJS.Timeout | undefined;

  constructor(options: PoolOptions) {
    this.docker = options.docker;
    this.config = options.config;
    this.workspaces = options.workspaces;
    this.log = options.log;
    this.exclusive = options.exclusive !== false;
    this.poolDir = options.workspaces.poolDir;
    // Containers are this daemon's when they carry the hash of its data folder: a second daemon
    // (or a test) on the same engine keeps its own.
    this.owner = createHash('sha256').update(realpathSync(options.dataDir)).digest('hex').slice(0, 16);
  }

  /** Removes containers left by a previous run (a crash), arms the idle reaper, fills the pool in the background. */
  async start(): Promise<void> {
    // Whether the size limit can be enforced is decided (and, if not, said in one warning) now, not at first use.
    const [removed] = await Promise.all([this.removeLeftovers(), this.workspaces.volumeSupport()]);
    if (removed > 0) this.log.info({ removed }, 'sandbox: removed containers left by a previous run');
    const interval = Math.min(30_000, Math.max(250, (this.config.idle_s * 1000) / 4));
    this.reaper = setInterval(() => {
      this.reapIdle().catch((error: unknown) => this.log.warn({ err: error }, 'sandbox: idle reclaim failed'));
    }, interval);
    this.reaper.unref();
    this.fill();
  }

  async removeLeftovers(): Promise<number> {
    const leftovers = await this.docker.listContainers({ all: true, filters: { label: [`${OWNER_LABEL}=${this.owner}`] } });
    const known = new Set(this.live.keys());
    const stale = leftovers.filter((info) => !known.has(info.Id));
    await Promise.all(stale.map((info) => this.remove(this.docker.getContainer(info.Id))));
    for (const entry of this.listPoolDirs()) if (!this.warm.some((box) => box.dir === entry)) await this.workspaces.removeWarm(entry);
    return stale.length;
  }

  /** Starts warm containers until `pool_size` are ready or being made. Contract: never throws; failures are logged. */
  fill(): void {
    // After a failure (image removed, engine gone) wait before trying again instead of spinning.
    if (this.closed || Date.now() - this.fillFailedAt < 5000) return;
    while (this.warm.length + this.creating < this.config.pool_size) {
      this.creating += 1;
      const filling: Promise<void> = this.createWarm()
        .then(async (box) => {
          if (this.closed) await this.removeBox(box);
          else this.warm.push(box);
        })
        .catch((error: unknown) => {
          this.fillFailedAt = Date.now();
          this.log.warn({ err: error }, 'sandbox: could not start a warm container');
        })
        .finally(() => {
          this.creating -= 1;
          this.filling.delete(filling);
          this.serveWaiters();
        });
      this.filling.add(filling);
    }
  }

  /** Runs a shell command in the conversation's container; on timeout or cancel the container is killed and replaced. */
  async run(conversationId: string, request: RunRequest): Promise<RunResult> {
    if (request.network && this.config.network !== 'bridge') {
      const dir = await this.workspaces.ensure(conversationId);
      return this.runOneOff(dir, { cmd: ['/bin/bash', '-c', request.command], timeoutMs: request.timeoutMs, network: 'bridge', ...(request.guest ? { guest: request.guest } : {}), ...(request.signal ? { signal: request.signal } : {}) });
    }
    for (let attempt = 0; ; attempt += 1) {
      const session = await this.acquire(conversationId);
      session.busy += 1;
      try {
        const result = await this.execIn(session.box, session, request.command, request);
        // The container could not even start the command: its pid limit is used up by what an earlier command
        // left running (a fork bomb that returned). Replace it once; the workspace stays.
        if (attempt === 0 && !this.closed && unstartable(result)) {
          this.log.warn({ conversation: conversationId }, 'sandbox: the container cannot start commands (pid limit used up); replacing it');
          this.forget(session);
          await this.removeBox(session.box);
          continue;
        }
        return result;
      } catch (error) {
        // The container vanished (removed by hand, engine restart): drop it and try once more with a fresh one.
        this.forget(session);
        await this.removeBox(session.box);
        if (attempt > 0 || this.closed) throw error;
        this.log.warn({ err: error, conversation: conversationId }, 'sandbox: container lost; replacing it');
      } finally {
        session.busy -= 1;
        session.lastUsed = Date.now();
      }
    }
  }

  /** Runs `cmd` in a container of its own bound to the conversation's workspace, then removes it. */
  async runOneOff(workspaceDir: string, request: OneOffRequest): Promise<RunResult> {
    const box = await this.createBox(workspaceDir, 'oneoff', { network: request.network, ...(request.image ? { image: request.image } : {}), ...(request.env ? { env: request.env } : {}) });
    try {
      return await this.execIn(box, undefined, request.cmd, request);
    } finally {
      await this.removeBox(box);
    }
  }

  /** The conversation's container, taken from the warm pool or created; serialised per conversation. */
  async acquire(conversationId: string): Promise<Session> {
    const existing = this.sessions.get(conversationId);
    if (existing) return this.touch(existing);
    const dir = this.workspaces.dir(conversationId);
    const session = await this.workspaces.locked(conversationId, async () => {
      const again = this.sessions.get(conversationId);
      if (again) return again;
      if (this.closed) throw new Error('the sandbox is shutting down');
      let box: Box | undefined;
      let warm = this.workspaces.exists(conversationId) ? undefined : this.warm.shift();
      // Just after start the pool is still filling: waiting for that container beats creating one more beside it.
      if (!warm && !this.workspaces.exists(conversationId) && this.creating > 0) {
        warm = await new Promise<Box | undefined>((resolve) => this.waiters.push(resolve));
        if (this.closed) throw new Error('the sandbox is shutting down');
      }
      if (warm?.dir) {
        try {
          await this.workspaces.adoptWarm(conversationId, warm.dir);
          box = { container: warm.container, id: warm.id };
        } catch (error) {
          // e.g. EXDEV when workspaces/ is another filesystem: fall back to a fresh container.
          this.log.warn({ err: error }, 'sandbox: could not hand a warm container over; creating one');
          await this.removeBox(warm);
        }
      }
      if (!box) {
        // Held open while the container is made: its mount cannot be taken away in between.
        const held = await this.workspaces.holdUnlocked(conversationId);
        try {
          box = await this.createBox(dir, 'session');
        } finally {
          await held.close();
        }
      }
      const created: Session = { box, conversationId, lastUsed: Date.now(), busy: 0, oomKills: 0 };
      this.sessions.set(conversationId, created);
      return created;
    });
    this.fill();
    return this.touch(session);
  }

  /** Removes the conversation's container (its workspace stays). */
  async release(conversationId: string): Promise<void> {
    const session = this.sessions.get(conversationId);
    if (!session) return;
    this.forget(session);
    await this.removeBox(session.box);
  }

  /** Removes containers of conversations idle for `idle_s`. */
  async reapIdle(now = Date.now()): Promise<number> {
    const idle = [...this.sessions.values()].filter((session) => session.busy === 0 && now - session.lastUsed >= this.config.idle_s * 1000);
    await Promise.all(idle.map((session) => this.release(session.conversationId)));
    if (idle.length > 0) this.log.debug({ count: idle.length }, 'sandbox: reclaimed idle containers');
    return idle.length;
  }

  /** Removes every container (warm, in use, one-off) and the warm folders. Contract: never throws. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.reaper) clearInterval(this.reaper);
    this.sessions.clear();
    this.warm.length = 0;
    this.serveWaiters();
    // Each in-flight warm start removes its own container once it sees `closed`.
    await Promise.allSettled([...this.filling]);
    await Promise.all([...this.live.values()].map((container) => this.remove(container)));
    this.live.clear();
    if (!this.exclusive) return;
    try {
      // Also what a warm start still in flight created.
      await this.removeLeftovers();
    } catch (error) {
      this.log.warn({ err: error }, 'sandbox: could not list containers while closing');
    }
    await this.workspaces.unmountAll();
  }

  /** For tests and status: the container id serving a conversation, if any. */
  containerOf(conversationId: string): string | undefined {
    return this.sessions.get(conversationId)?.box.id;
  }

  get warmCount(): number {
    return this.warm.length;
  }

  /** Hands finished warm containers to waiting conversations; with none left in the making, they create their own. */
  private serveWaiters(): void {
    while (this.waiters.length > 0 && this.warm.length > 0) this.waiters.shift()?.(this.warm.shift());
    if (this.creating === 0 || this.closed) for (const waiter of this.waiters.splice(0)) waiter(undefined);
  }

  private touch(session: Session): Session {
    session.lastUsed = Date.now();
    return session;
  }

  private forget(session: Session): void {
    if (this.sessions.get(session.conversationId) === session) this.sessions.delete(session.conversationId);
  }

  private async execIn(box: Box, session: Session | undefined, command: string | string[], request: { timeoutMs: number; signal?: AbortSignal; guest?: string }): Promise<RunResult> {
    if (request.guest) command = await prepareForGuest(box.container, command, request);
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, request.timeoutMs);
    const onCancel = () => controller.abort();
    if (request.signal?.aborted) controller.abort();
    request.signal?.addEventListener('abort', onCancel, { once: true });
    let outcome;
    try {
      outcome = await runExec(box.container, {
        cmd: typeof command === 'string' ? ['/bin/bash', '-c', command] : command,
        outputBytes: this.config.output_bytes,
        signal: controller.signal,
        ...(request.guest ? { user: request.guest } : {}),
      });
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onCancel);
    }
    const result: RunResult = { exitCode: outcome.exitCode, stdout: outcome.stdout, stderr: outcome.stderr, timedOut, cancelled: outcome.aborted && !timedOut, oomKilled: false };
    if (outcome.aborted) {
      // The Docker API cannot kill one exec: the container goes, and a warm one replaces it.
      if (session) this.forget(session);
      await this.removeBox(box);
      this.fill();
      return result;
    }
    if (outcome.exitCode === 137) {
      const kills = await this.oomKillCount(box);
      const previous = session?.oomKills ?? 0;
      result.oomKilled = kills > previous;
      if (session) session.oomKills = kills;
    }
    return result;
  }

  private async oomKillCount(box: Box): Promise<number> {
    try {
      const outcome = await runExec(box.container, {
        cmd: ['/bin/sh', '-c', 'cat /sys/fs/cgroup/memory/memory.oom_control /sys/fs/cgroup/memory.events 2>/dev/null'],
        outputBytes: 4096,
        signal: AbortSignal.timeout(5000),
      });
      const match = /^oom_kill (\d+)$/m.exec(outcome.stdout.text());
      return match ? Number(match[1]) : 0;
    } catch {
      return 0;
    }
  }

  private async createWarm(): Promise<Box> {
    const dir = path.join(this.poolDir, randomBytes(6).toString('hex'));
    await this.workspaces.createWarm(dir);
    try {
      const box = await this.createBox(dir, 'warm');
      return { ...box, dir };
    } catch (error) {
      await this.workspaces.removeWarm(dir);
      throw error;
    }
  }

  private async createBox(workspaceDir: string, role: 'warm' | 'session' | 'oneoff', overrides: { image?: string; network?: 'none' | 'bridge'; env?: string[] } = {}): Promise<Box> {
    const config = this.config;
    const memory = config.memory_mb * MIB;
    const container = await this.docker.createContainer({
      name: `familiar-${this.owner.slice(0, 8)}-${role}-${randomBytes(4).toString('hex')}`,
      Image: overrides.image ?? config.image,
      Cmd: ['sleep', 'infinity'],
      User: config.user,
      WorkingDir: '/workspace',
      // The root is read-only: HOME on the tmpfs lets tools write their caches.
      Env: ['HOME=/tmp', ...(overrides.env ?? [])],
      Labels: { ...config.labels, [LABEL]: '1', [OWNER_LABEL]: this.owner, 'familiar.sandbox.role': role },
      HostConfig: {
        NetworkMode: overrides.network ?? config.network,
        Memory: memory,
        // Equal to Memory: no swap on top, so a runaway allocation is OOM-killed instead of thrashing.
        MemorySwap: memory,
        NanoCpus: Math.round(config.cpus * 1e9),
        PidsLimit: config.pids_limit,
        ReadonlyRootfs: config.read_only_root,
        Tmpfs: { '/tmp': `rw,nosuid,nodev,exec,size=${config.tmpfs_mb}m,mode=1777` },
        CapDrop: ['ALL'],
        SecurityOpt: ['no-new-privileges'],
        // An init as PID 1 reaps orphans, so finished background processes do not eat the pids limit.
        Init: true,
        Mounts: [{ Type: 'bind', Source: workspaceDir, Target: '/workspace', ReadOnly: false }],
        RestartPolicy: { Name: 'no' },
      },
    });
    this.live.set(container.id, container);
    try {
      await container.start();
    } catch (error) {
      await this.remove(container);
      throw error;
    }
    return { container, id: container.id };
  }

  private async removeBox(box: Box): Promise<void> {
    await this.remove(box.container);
    if (box.dir) await this.workspaces.removeWarm(box.dir);
  }

  /** Force-removes (kills) a container. Contract: never throws; a container already gone is fine. */
  private async remove(container: Docker.Container): Promise<void> {
    this.live.delete(container.id);
    try {
      await container.remove({ force: true, v: true });
    } catch (error) {
      const status = (error as { statusCode?: number }).statusCode;
      // 404: already gone; 409: removal already in progress.
      if (status !== 404 && status !== 409) this.log.warn({ err: error, container: container.id.slice(0, 12) }, `sandbox: could not remove a container: ${errorMessage(error)}`);
    }
  }

  private listPoolDirs(): string[] {
    try {
      // A warm folder and its image (`<name>.img`) go together.
      const names = new Set(readdirSync(this.poolDir).map((name) => name.replace(/\.img$/, '')));
      return [...names].map((name) => path.join(this.poolDir, name));
    } catch {
      return [];
    }
  }
}

/** Docker's answer when an exec could not start in the container at all (exit 126 from the runtime, not the command). */
function unstartable(result: RunResult): boolean {
  return result.exitCode === 126 && result.stdout.total < 1000 && /^OCI runtime exec failed/m.test(result.stdout.text());
}
