import { randomBytes } from 'node:crypto';
import { constants, existsSync, type Stats, type StatsFs } from 'node:fs';
import { lstat, mkdir, open, readdir, readlink, rename, rmdir, statfs, symlink, unlink, type FileHandle } from 'node:fs/promises';

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;
/** Opening a folder never follows a final link and never waits (O_NONBLOCK is harmless on folders). */
const DIR_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK;
/** Opening a file never follows a final link and never blocks on a FIFO or a device. */
const READ_FLAGS = O_RDONLY | O_NOFOLLOW | O_NONBLOCK;
/** A new file only: O_EXCL fails on anything already there, a link or a FIFO included, and follows nothing. */
const CREATE_FLAGS = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK;

export type EntryKind = 'file' | 'dir' | 'link' | 'other';

/** Why an operation inside a pinned folder was refused (besides plain errno errors such as ENOENT or ENOSPC). */
export type RefusalCode = 'link' | 'folder' | 'not_file' | 'not_dir' | 'hard_link' | 'too_large' | 'bad_name';

export class RefusedError extends Error {
  constructor(
    readonly refusal: RefusalCode,
    message: string,
  ) {
    super(message);
    this.name = 'RefusedError';
  }
}

export function kindOf(stats: Stats): EntryKind {
  if (stats.isSymbolicLink()) return 'link';
  if (stats.isDirectory()) return 'dir';
  if (stats.isFile()) return 'file';
  return 'other';
}

export interface Owner {
  uid: number;
  gid: number;
}

/** What a new file or folder gets: chown to `owner` when set (the daemon is root), else `worldWritable` folders. */
export interface Ownership {
  owner?: Owner | undefined;
  worldWritable?: boolean | undefined;
}

/**
 * True when this machine can pin folders: the /proc/self/fd links the whole approach rests on.
 * Without them (no /proc mounted) workspace file work is refused rather than done by path.
 */
export function pinningAvailable(): boolean {
  return existsSync('/proc/self/fd');
}

/**
 * A folder held open by its file descriptor; every operation on an entry goes through
 * `/proc/self/fd/<fd>/<name>`. Node has no openat(2), but the kernel resolves that path as the held
 * folder itself (a "magic link" to the open file, not a lookup of the folder's path), then looks `name`
 * up inside it: the same guarantee as openat(fd, name). So a folder swapped for a link, renamed or
 * moved after it was opened changes nothing: the daemon keeps working in the folder it opened, and
 * final components are never followed (O_NOFOLLOW on opens; lstat, unlink, rename and mkdir do not
 * follow a final link by nature).
 *
 * Names are single path components; the handle must stay open while any path from `entry()` is used,
 * or the descriptor number could be reused by another file. Contract: methods throw errno errors and
 * `RefusedError`; callers turn them into messages.
 */
export class PinnedDir {
  private closed = false;

  private constructor(
    private readonly handle: FileHandle,
    /** For messages only: the workspace-relative path of this folder ('' for the root). */
    readonly relative: string,
  ) {}

  /** Opens an absolute folder path that the daemon controls (no component the sandbox can change). */
  static async openTrusted(absolute: string): Promise<PinnedDir> {
    return new PinnedDir(await open(absolute, DIR_FLAGS), '');
  }

  /** A second handle on this same folder (its own descriptor, closed separately). */
  async reopen(): Promise<PinnedDir> {
    // The magic link itself is followed (no O_NOFOLLOW): it leads to this open folder, not to a path.
    return new PinnedDir(await open(this.self(), O_RDONLY | O_DIRECTORY), this.relative);
  }

  get fd(): number {
    return this.handle.fd;
  }

  /** The path that names `name` inside this very folder. */
  entry(name: string): string {
    if (this.closed) throw new Error('the folder handle is closed');
    checkName(name);
    return `/proc/self/fd/${this.handle.fd}/${name}`;
  }

  /** The folder itself, as a path usable by readdir and statfs. */
  self(): string {
    if (this.closed) throw new Error('the folder handle is closed');
    return `/proc/self/fd/${this.handle.fd}`;
  }

  childRelative(name: string): string {
    return this.relative === '' ? name : `${this.relative}/${name}`;
  }

  stat(): Promise<Stats> {
    return this.handle.stat();
  }

  /** lstat of an entry; undefined when it does not exist. */
  async lstat(name: string): Promise<Stats | undefined> {
    try {
      return await lstat(this.entry(name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async names(): Promise<string[]> {
    return (await readdir(this.self())).sort();
  }

  /** Opens a sub-folder; a link, file or anything else there is refused. */
  async openDir(name: string): Promise<PinnedDir> {
    try {
      return new PinnedDir(await open(this.entry(name), DIR_FLAGS), this.childRelative(name));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // With O_DIRECTORY, Linux answers a final link with ENOTDIR rather than ELOOP: lstat tells them apart.
      const isLink = code === 'ELOOP' || (code === 'ENOTDIR' && (await this.lstat(name).catch(() => undefined))?.isSymbolicLink() === true);
      if (isLink) throw new RefusedError('link', `${this.childRelative(name)} is a symbolic link`);
      if (code === 'ENOTDIR') throw new RefusedError('not_dir', `${this.childRelative(name)} is not a folder`);
      throw error;
    }
  }

  /** Opens a sub-folder, creating it (handed to the sandbox user) when missing. */
  async openOrMakeDir(name: string, ownership: Ownership): Promise<{ dir: PinnedDir; created: boolean }> {
    let created = false;
    try {
      await mkdir(this.entry(name), { mode: 0o755 });
      created = true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const dir = await this.openDir(name);
    try {
      if (created) await giveTo(dir.handle, true, ownership);
    } catch (error) {
      await dir.close();
      throw error;
    }
    return { dir, created };
  }

  /**
   * Opens a regular file for reading: refuses links, FIFOs, devices and sockets before opening them (lstat),
   * then checks again on the open descriptor (fstat) in case the entry was swapped in between. A file
   * with more than one hard link is refused too: its other name could be a host file.
   */
  async openFile(name: string, maxBytes: number, options: { allowHardLinks?: boolean } = {}): Promise<{ handle: FileHandle; stats: Stats }> {
    const relative = this.childRelative(name);
    const before = await lstat(this.entry(name));
    refuseUnlessPlainFile(before, relative, maxBytes, options.allowHardLinks);
    let handle: FileHandle;
    try {
      handle = await open(this.entry(name), READ_FLAGS);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new RefusedError('link', `${relative} is a symbolic link`);
      throw error;
    }
    try {
      const stats = await handle.stat();
      refuseUnlessPlainFile(stats, relative, maxBytes, options.allowHardLinks);
      return { handle, stats };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** Reads a whole regular file (see `openFile`), at most `maxBytes`. */
  async readFile(name: string, maxBytes: number): Promise<Buffer> {
    const { handle, stats } = await this.openFile(name, maxBytes);
    try {
      // Read what fstat announced, never more: the file may grow while it is read.
      const buffer = Buffer.alloc(stats.size);
      let filled = 0;
      while (filled < buffer.length) {
        const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return filled === buffer.length ? buffer : buffer.subarray(0, filled);
    } finally {
      await handle.close();
    }
  }

  /**
   * Creates `name` with `data`; fails with EEXIST when anything is there. The new file is handed to the
   * sandbox user through its descriptor (fchown), never by path. A partial file is removed on failure.
   */
  async createFile(name: string, data: string | Buffer | ((handle: FileHandle) => Promise<void>), ownership: Ownership, mode = 0o644): Promise<void> {
    const handle = await open(this.entry(name), CREATE_FLAGS, mode);
    try {
      if (typeof data === 'function') await data(handle);
      else await handle.writeFile(data);
      await giveTo(handle, false, ownership);
      // The umask may have cut the mode (an executable script must stay executable).
      await handle.chmod(mode);
      await handle.sync();
    } catch (error) {
      await handle.close();
      await unlink(this.entry(name)).catch(() => undefined);
      throw error;
    }
    await handle.close();
  }

  /**
   * Writes `name` atomically: a new temp file in this folder, then rename over the old name. rename
   * replaces whatever is at `name` (a link is replaced, not followed) and fails on a folder. Readers see
   * the old or the new file; on any failure (the disk full) the old file stays and the temp file goes.
   */
  async writeFileAtomic(name: string, data: string | Buffer, ownership: Ownership): Promise<void> {
    const temp = tempName(name);
    await this.createFile(temp, data, ownership);
    try {
      await rename(this.entry(temp), this.entry(name));
    } catch (error) {
      await unlink(this.entry(temp)).catch(() => undefined);
      throw error;
    }
  }

  /** Renames an entry of this folder to `to` in `target` (the same filesystem). */
  async renameTo(name: string, target: PinnedDir, to: string): Promise<void> {
    await rename(this.entry(name), target.entry(to));
  }

  async unlink(name: string): Promise<void> {
    await unlink(this.entry(name));
  }

  async rmdir(name: string): Promise<void> {
    await rmdir(this.entry(name));
  }

  async symlink(target: string, name: string): Promise<void> {
    await symlink(target, this.entry(name));
  }

  async readlink(name: string): Promise<string> {
    return readlink(this.entry(name));
  }

  statfs(): Promise<StatsFs> {
    return statfs(this.self());
  }

  /** Hands this folder to the sandbox user (fchown / fchmod on its descriptor). */
  giveToSandbox(ownership: Ownership): Promise<void> {
    return giveTo(this.handle, true, ownership);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.handle.close();
  }
}

/** Runs `task` with `dir`, then closes it. */
export async function using<T>(dir: PinnedDir, task: (dir: PinnedDir) => Promise<T>): Promise<T> {
  try {
    return await task(dir);
  } finally {
    await dir.close();
  }
}

export function tempName(name: string): string {
  return `.${name.slice(0, 100)}.${randomBytes(4).toString('hex')}.tmp`;
}

function checkName(name: string): void {
  if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0')) {
    throw new RefusedError('bad_name', `"${name}" is not a file name`);
  }
}

function refuseUnlessPlainFile(stats: Stats, relative: string, maxBytes: number, allowHardLinks = false): void {
  if (stats.isSymbolicLink()) throw new RefusedError('link', `${relative} is a symbolic link`);
  if (stats.isDirectory()) throw new RefusedError('folder', `${relative} is a folder`);
  if (!stats.isFile()) throw new RefusedError('not_file', `${relative} is not a regular file (a FIFO, socket or device)`);
  if (stats.nlink > 1 && !allowHardLinks) throw new RefusedError('hard_link', `${relative} has ${stats.nlink} hard links`);
  if (stats.size > maxBytes) throw new RefusedError('too_large', `${relative} has ${stats.size} bytes, more than ${maxBytes}`);
}

async function giveTo(handle: FileHandle, isDir: boolean, ownership: Ownership): Promise<void> {
  if (ownership.owner) await handle.chown(ownership.owner.uid, ownership.owner.gid);
  else if (isDir && ownership.worldWritable) await handle.chmod(0o777);
}
