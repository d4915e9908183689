import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { mkdir, rename, rm, rmdir, statfs } from 'node:fs/promises';
import path from 'node:path';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import { KeyedMutex } from '../lib/atomic-write.js';
import type { Result } from '../lib/result.js';
import { PinnedDir, pinningAvailable, using, type Ownership } from './pinned-dir.js';
import { copyTree, removeTree } from './tree.js';
import { createImage, growImage, isMountPoint, mountImage, mountsUnder, moveMount, probeVolumes, unmount, type VolumeSupport } from './volumes.js';
import { parseSandboxUser, type SandboxOwner } from './sandbox-user.js';
import { WorkspaceFiles, type Usage } from './workspace-files.js';

export { parseSandboxUser, type SandboxOwner } from './sandbox-user.js';

/** A conversation's id, then a person's name in a household's shared conversation (workspace-key.ts); no `@` in the id. */
const WORKSPACE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}(?:@[a-z][a-z0-9_-]{0,31})?$/;
const MIB = 1024 * 1024;

export interface WorkspacesOptions {
  /** `tools.sandbox.workspace_mb`: each workspace's size limit; 0 (the default here) = none. */
  limitMb?: number | undefined;
  log?: Logger | undefined;
}

/**
 * The conversations' workspaces: `data_dir/workspaces/<conversation>`, mounted at /workspace in that
 * conversation's container, and worked on host side only through `open()` (pinned folders, see PinnedDir).
 *
 * With a size limit, each workspace is its own ext4 filesystem: the image `data_dir/sandbox/volumes/<id>.img`
 * loop-mounted at the folder (see volumes.ts), mounted again on first use after a reboot. A plain folder
 * from before the limit is moved into a new image on first use. A workspace, once it exists, is never
 * replaced, so every container bound to it sees the same files. Creating or mounting is serialised per
 * conversation (`locked`); the pool's warm hand-over runs under the same lock.
 */
export class Workspaces {
  readonly root: string;
  /** Warm containers' private folders (and their images). */
  readonly poolDir: string;
  readonly limitMb: number;
  private readonly sandboxDir: string;
  private readonly volumesDir: string;
  private readonly legacyDir: string;
  private readonly owner: SandboxOwner | undefined;
  private readonly log: Logger | undefined;
  private readonly mutex = new KeyedMutex();
  private support: Promise<VolumeSupport> | undefined;
  /** Conversations whose mounted image was checked against the limit in this process (grown if it was raised). */
  private readonly sized = new Set<string>();

  /** `user` is `tools.sandbox.user`: who gets new files and folders. */
  constructor(dataDir: string, user: string, options: WorkspacesOptions = {}) {
    this.root = path.join(dataDir, 'workspaces');
    this.sandboxDir = path.join(dataDir, 'sandbox');
    this.poolDir = path.join(this.sandboxDir, 'pool');
    this.volumesDir = path.join(this.sandboxDir, 'volumes');
    this.legacyDir = path.join(this.sandboxDir, 'legacy');
    this.limitMb = options.limitMb ?? 0;
    this.owner = parseSandboxUser(user);
    this.log = options.log;
    mkdirSync(this.root, { recursive: true });
    mkdirSync(this.poolDir, { recursive: true });
  }

  /**
   * The folder of a workspace (it may not exist yet): a conversation's id, or in a household a person's key in a shared
   * one (workspace-key.ts). Throws for a key that is not a safe folder name.
   */
  dir(conversationId: string): string {
    if (!WORKSPACE_ID.test(conversationId) || conversationId.includes('..')) {
      throw new Error(`conversation id ${JSON.stringify(conversationId)} is not a safe folder name`);
    }
    return path.join(this.root, conversationId);
  }

  private image(conversationId: string): string {
    return path.join(this.volumesDir, `${conversationId}.img`);
  }

  exists(conversationId: string): boolean {
    const dir = this.dir(conversationId);
    return existsSync(dir) || existsSync(this.image(conversationId));
  }

  /** Runs `task` with the conversation's workspace creation locked (the pool's warm hand-over uses it). */
  locked<T>(conversationId: string, task: () => Promise<T>): Promise<T> {
    return this.mutex.run(conversationId, task);
  }

  /**
   * Whether the size limit is enforced here. Decided once, by mounting a small test image; when it cannot be,
   * one warning says why and workspaces are plain folders (still worked on only through pinned folders).
   */
  volumeSupport(): Promise<VolumeSupport> {
    this.support ??= (async (): Promise<VolumeSupport> => {
      if (this.limitMb === 0) return { enforced: false, reason: 'tools.sandbox.workspace_mb is 0 (no limit)' };
      await mkdir(this.sandboxDir, { recursive: true });
      const support = await probeVolumes(this.sandboxDir);
      if (!support.enforced) this.log?.warn(`sandbox: workspaces have no size limit: ${support.reason}; tools.sandbox.workspace_mb (${this.limitMb}) is not enforced`);
      return support;
    })();
    return this.support;
  }

  /** How new files and folders are handed to the sandbox user. */
  ownership(): Ownership {
    const uid = process.getuid?.();
    if (this.owner && uid === 0) return { owner: this.owner };
    if (this.owner && uid === this.owner.uid) return {};
    // The daemon cannot chown: folders become world-writable so the container can write in them.
    return { worldWritable: true };
  }

  /**
   * Opens the workspace for one operation (mounting it first if needed; creating it with `create`).
   * Contract: never throws; a failure says what is wrong.
   */
  async open(conversationId: string, options: { create: boolean }): Promise<Result<WorkspaceFiles>> {
    if (!pinningAvailable()) return { success: false, error: 'the workspace cannot be opened safely here (/proc is not mounted)' };
    let dir: string;
    try {
      dir = this.dir(conversationId);
    } catch (error) {
      return { success: false, error: errorMessage(error) };
    }
    const prepared = await this.prepare(conversationId, options.create);
    if (!prepared.success) return prepared;
    try {
      const root = await PinnedDir.openTrusted(dir);
      // Unmounted by another process since it was checked: the folder under the mount must not be written.
      if (prepared.value && (await root.stat()).dev === statSync(this.root).dev) {
        await root.close();
        return { success: false, error: 'the workspace was unmounted while it was opened; try again' };
      }
      return { success: true, value: new WorkspaceFiles(root, this.ownership(), prepared.value ? this.limitMb * MIB : undefined) };
    } catch (error) {
      return { success: false, error: `the workspace cannot be opened: ${errorMessage(error)}` };
    }
  }

  /** Creates (and mounts) the workspace if needed and returns its folder. Throws when that fails. */
  async ensure(conversationId: string): Promise<string> {
    const prepared = await this.prepare(conversationId, true);
    if (!prepared.success) throw new Error(prepared.error);
    return this.dir(conversationId);
  }

  /**
   * `ensure` for callers already holding `locked(conversationId)`, returning the workspace held open: while
   * the caller holds it, its mount cannot be unmounted (EBUSY), so a container created meanwhile binds it.
   */
  async holdUnlocked(conversationId: string): Promise<PinnedDir> {
    const prepared = await this.prepareUnlocked(conversationId, true);
    if (!prepared.success) throw new Error(prepared.error);
    return PinnedDir.openTrusted(this.dir(conversationId));
  }

  /** Space used and left, when the workspace has an enforced size limit and is mounted. Contract: never throws. */
  async usage(conversationId: string): Promise<Usage | undefined> {
    try {
      const dir = this.dir(conversationId);
      if (this.limitMb === 0 || !isMountPoint(dir)) return undefined;
      const info = await statfs(dir);
      const availableBytes = info.bavail * info.bsize;
      const limitBytes = this.limitMb * MIB;
      return { usedBytes: Math.max(0, limitBytes - availableBytes), limitBytes, availableBytes };
    } catch {
      return undefined;
    }
  }

  /** Makes a warm container's empty folder (its own image when the limit is enforced). */
  async createWarm(dir: string): Promise<void> {
    await mkdir(dir);
    try {
      if ((await this.volumeSupport()).enforced) {
        await createImage(`${dir}.img`, this.limitMb, this.owner);
        await mountImage(`${dir}.img`, dir);
      }
      await this.giveRoot(dir);
    } catch (error) {
      await this.removeWarm(dir);
      throw error;
    }
  }

  /**
   * Makes a warm container's folder the conversation's workspace (the caller holds `locked` and has checked
   * that none exists). A plain folder is renamed (a bind mount follows the folder, not its name); a mounted
   * image is bound at the workspace folder and its image renamed: the container keeps its mount either way.
   */
  async adoptWarm(conversationId: string, warmDir: string): Promise<void> {
    const dir = this.dir(conversationId);
    if (!existsSync(`${warmDir}.img`)) {
      await rename(warmDir, dir);
      return;
    }
    await mkdir(this.volumesDir, { recursive: true });
    await mkdir(dir, { mode: 0o755 });
    try {
      await moveMount(warmDir, dir);
    } catch (error) {
      await rmdir(dir).catch(() => undefined);
      throw error;
    }
    await rename(`${warmDir}.img`, this.image(conversationId));
    this.sized.add(conversationId);
    await rmdir(warmDir).catch(() => undefined);
  }

  /** Removes a warm folder (unmounting it) and its image. Contract: never throws; failures are logged. */
  async removeWarm(dir: string): Promise<void> {
    try {
      if (isMountPoint(dir)) await unmount(dir);
      await rm(dir, { recursive: true, force: true });
      await rm(`${dir}.img`, { force: true });
    } catch (error) {
      this.log?.warn({ err: error, dir }, 'sandbox: could not remove a warm workspace');
    }
  }

  /** Unmounts every workspace and warm folder this data folder has mounted (at shutdown). Contract: never throws. */
  async unmountAll(): Promise<void> {
    for (const point of [...mountsUnder(this.root), ...mountsUnder(this.poolDir)]) {
      if (point === this.root || point === this.poolDir) continue;
      // Busy (another process of this data folder is using it): it stays mounted, which is harmless.
      await unmount(point).catch((error: unknown) => this.log?.debug({ err: error, dir: point }, 'sandbox: workspace left mounted'));
    }
  }

  /** Hands a new workspace's root folder to the sandbox user (its image may already have it, by root_owner). */
  private async giveRoot(dir: string): Promise<void> {
    await using(await PinnedDir.openTrusted(dir), (pinned) => pinned.giveToSandbox(this.ownership()));
  }

  /**
   * Makes sure the workspace exists (with `create`) and is mounted when the limit is enforced. The value
   * says whether the limit applies to it. Contract: never throws.
   */
  private async prepare(conversationId: string, create: boolean): Promise<Result<boolean>> {
    const dir = this.dir(conversationId);
    const support = await this.volumeSupport();
    // Fast path, no lock: already there in the expected shape.
    if (support.enforced && this.sized.has(conversationId) && isMountPoint(dir)) return { success: true, value: true };
    if (!support.enforced && existsSync(dir) && !existsSync(this.image(conversationId))) return { success: true, value: false };
    return this.locked(conversationId, () => this.prepareUnlocked(conversationId, create));
  }

  private async prepareUnlocked(conversationId: string, create: boolean): Promise<Result<boolean>> {
    const dir = this.dir(conversationId);
    const image = this.image(conversationId);
    const support = await this.volumeSupport();
    try {
      if (!support.enforced) {
        if (existsSync(image) && !isMountPoint(dir)) {
          return { success: false, error: `this conversation's workspace is a size-limited image (${image}) that cannot be mounted here: ${support.reason}` };
        }
        if (existsSync(dir)) return { success: true, value: false };
        if (!create) return { success: false, error: 'the workspace does not exist yet (it is empty)' };
        await mkdir(dir);
        await this.giveRoot(dir);
        return { success: true, value: false };
      }
      if (existsSync(image)) {
        if (!isMountPoint(dir)) {
          if (await growImage(image, this.limitMb)) this.log?.info({ conversation: conversationId, limitMb: this.limitMb }, 'sandbox: workspace grown to the raised limit');
          await mkdir(dir, { recursive: true, mode: 0o755 });
          await mountImage(image, dir);
        }
        // Mounted before this process started (no clean shutdown): a raised limit applies from the next mount.
        this.sized.add(conversationId);
        return { success: true, value: true };
      }
      if (existsSync(dir)) {
        await this.migrate(conversationId);
        return { success: true, value: true };
      }
      if (!create) return { success: false, error: 'the workspace does not exist yet (it is empty)' };
      await mkdir(this.volumesDir, { recursive: true });
      await createImage(image, this.limitMb, this.owner);
      await mkdir(dir, { mode: 0o755 });
      await mountImage(image, dir);
      await this.giveRoot(dir);
      this.sized.add(conversationId);
      return { success: true, value: true };
    } catch (error) {
      this.log?.warn({ err: error, conversation: conversationId }, 'sandbox: workspace could not be prepared');
      return { success: false, error: `the workspace could not be prepared: ${errorMessage(error)}` };
    }
  }

  /**
   * Moves a plain workspace folder (made before the limit, or while it could not be enforced) into a new
   * image: the folder is renamed aside, the image mounted in its place, and the files copied in through
   * pinned folders. What does not fit stays aside in `data_dir/sandbox/legacy/`, with a warning.
   */
  private async migrate(conversationId: string): Promise<void> {
    const dir = this.dir(conversationId);
    const image = this.image(conversationId);
    const asideName = `${conversationId}-${randomBytes(4).toString('hex')}`;
    await mkdir(this.legacyDir, { recursive: true });
    await mkdir(this.volumesDir, { recursive: true });
    await rename(dir, path.join(this.legacyDir, asideName));
    await createImage(image, this.limitMb, this.owner);
    await mkdir(dir, { mode: 0o755 });
    await mountImage(image, dir);
    await this.giveRoot(dir);
    this.sized.add(conversationId);
    const legacy = await PinnedDir.openTrusted(this.legacyDir);
    await using(legacy, async () => {
      const skipped: string[] = [];
      try {
        const source = await legacy.openDir(asideName);
        const target = await PinnedDir.openTrusted(dir);
        await using(source, () => using(target, () => copyTree(source, target, {
          ownership: this.ownership(), links: 'copy', allowHardLinks: false, onSkip: (relative) => skipped.push(relative),
        })));
      } catch (error) {
        this.log?.warn({ err: error, conversation: conversationId, kept: path.join(this.legacyDir, asideName) }, `sandbox: a workspace did not fit in its new ${this.limitMb} MB limit; the files not copied are kept aside`);
        return;
      }
      if (skipped.length > 0) {
        this.log?.warn({ conversation: conversationId, skipped: skipped.slice(0, 20), kept: path.join(this.legacyDir, asideName) }, 'sandbox: some entries of a workspace were not moved into its image (kept aside)');
        return;
      }
      await removeTree(legacy, asideName);
      this.log?.info({ conversation: conversationId, limitMb: this.limitMb }, 'sandbox: workspace moved into a size-limited image');
    });
  }
}
