import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { KeyedMutex } from '../lib/atomic-write.js';
import { resolveInside, type ResolvedPath } from '../lib/paths.js';

/** The uid/gid the sandbox runs as, when `tools.sandbox.user` is numeric ("1000" or "1000:1000"). */
export interface SandboxOwner {
  uid: number;
  gid: number;
}

export function parseSandboxUser(user: string): SandboxOwner | undefined {
  const match = /^(\d+)(?::(\d+))?$/.exec(user.trim());
  if (!match) return undefined;
  const uid = Number(match[1]);
  return { uid, gid: match[2] === undefined ? uid : Number(match[2]) };
}

const CONVERSATION_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;

/**
 * The conversations' workspaces: `data_dir/workspaces/<conversation>`, mounted at /workspace in that
 * conversation's container and used directly (host side) by the file tools.
 *
 * A workspace folder, once created, is never replaced or moved, so every container bound to it sees
 * the same files. Creation is serialised per conversation (`create`, `adopt`): the pool may instead
 * rename a warm container's empty folder into place, and the two must not race.
 */
export class Workspaces {
  readonly root: string;
  private readonly owner: SandboxOwner | undefined;
  private readonly mutex = new KeyedMutex();

  constructor(dataDir: string, user: string) {
    this.root = path.join(dataDir, 'workspaces');
    this.owner = parseSandboxUser(user);
    mkdirSync(this.root, { recursive: true });
  }

  /** The folder of a conversation (it may not exist yet). Throws for an id that is not a safe folder name. */
  dir(conversationId: string): string {
    if (!CONVERSATION_ID.test(conversationId) || conversationId.includes('..')) {
      throw new Error(`conversation id ${JSON.stringify(conversationId)} is not a safe folder name`);
    }
    return path.join(this.root, conversationId);
  }

  exists(conversationId: string): boolean {
    return existsSync(this.dir(conversationId));
  }

  /** Runs `task` with the conversation's workspace creation locked (the pool's warm hand-over uses it). */
  locked<T>(conversationId: string, task: () => Promise<T>): Promise<T> {
    return this.mutex.run(conversationId, task);
  }

  /** Creates the workspace if needed and returns its folder. */
  async ensure(conversationId: string): Promise<string> {
    const dir = this.dir(conversationId);
    if (existsSync(dir)) return dir;
    return this.locked(conversationId, async () => {
      this.ensureUnlocked(dir);
      return dir;
    });
  }

  /** For callers already holding `locked(conversationId)`. */
  ensureUnlocked(dir: string): void {
    if (existsSync(dir)) return;
    mkdirSync(dir, { recursive: true });
    this.giveToSandbox(dir);
  }

  /**
   * Makes a path the daemon created usable by the container user: chown when the daemon runs as root,
   * else world-writable folders (the daemon then cannot chown; see the README on running as non-root).
   * Contract: never throws.
   */
  giveToSandbox(target: string): void {
    try {
      const isDir = lstatSync(target).isDirectory();
      const uid = process.getuid?.();
      if (!this.owner) {
        if (isDir) chmodSync(target, 0o777);
        return;
      }
      if (uid === 0) chownSync(target, this.owner.uid, this.owner.gid);
      else if (uid !== this.owner.uid && isDir) chmodSync(target, 0o777);
    } catch {
      // Best effort: a file the container cannot write shows up as "Permission denied" in its output.
    }
  }

  /** `giveToSandbox` for each path (a written file and the folders created for it). */
  giveAll(paths: readonly string[]): void {
    for (const target of paths) this.giveToSandbox(target);
  }

  /**
   * Resolves a model-supplied path inside the conversation's workspace (no `..`, no absolute path, no
   * link leading out). `"."` and `""` name the workspace itself. Contract: never throws.
   */
  resolve(conversationId: string, requested: string): ResolvedPath {
    let root: string;
    try {
      root = this.dir(conversationId);
    } catch (error) {
      return { success: false, error: (error as Error).message };
    }
    const cleaned = requested.trim().replace(/\\/g, '/');
    if (cleaned === '' || cleaned === '.' || cleaned === './') {
      try {
        return { success: true, absolute: realpathSync(root), relative: '.' };
      } catch {
        return { success: false, error: 'the workspace does not exist yet (it is empty)' };
      }
    }
    return resolveInside(root, requested);
  }
}

/** True when `candidate` (a real path) is `root` or inside it. */
export function isInside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root + path.sep);
}
