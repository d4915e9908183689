import type { FileHandle } from 'node:fs/promises';
import { RefusedError, kindOf, using, type Ownership, type PinnedDir } from './pinned-dir.js';

const COPY_CHUNK = 1024 * 1024;
const TREE_DEPTH = 64;

export interface CopyOptions {
  ownership: Ownership;
  /** `copy`: recreate links as links (never followed); `skip`: leave them out. */
  links: 'copy' | 'skip';
  /** A source that the daemon trusts (the skills folder) may hold hard-linked files; a workspace may not. */
  allowHardLinks: boolean;
  /** Told about each entry left out (a FIFO, a device, a hard link, too deep). */
  onSkip?: (relative: string, reason: string) => void;
}

/**
 * Copies the contents of `source` into `target` (an empty folder, normally), both pinned: regular files
 * (permission bits kept, set-id bits dropped), folders and, if asked, links; FIFOs, sockets and devices are
 * left out. Nothing is followed and nothing is opened that could block. Throws on the first write error
 * (ENOSPC when the target is full) with what was copied so far left in place.
 */
export async function copyTree(source: PinnedDir, target: PinnedDir, options: CopyOptions, depth = 0): Promise<void> {
  for (const name of await source.names()) {
    const stats = await source.lstat(name);
    if (!stats) continue;
    const relative = source.childRelative(name);
    const kind = kindOf(stats);
    if (kind === 'dir') {
      if (depth + 1 >= TREE_DEPTH) {
        options.onSkip?.(relative, `deeper than ${TREE_DEPTH} folders`);
        continue;
      }
      let from: PinnedDir;
      try {
        from = await source.openDir(name);
      } catch (error) {
        options.onSkip?.(relative, (error as Error).message);
        continue;
      }
      await using(from, async () => {
        const { dir: to } = await target.openOrMakeDir(name, options.ownership);
        await using(to, () => copyTree(from, to, options, depth + 1));
      });
    } else if (kind === 'file') {
      let opened: Awaited<ReturnType<PinnedDir['openFile']>>;
      try {
        opened = await source.openFile(name, Number.MAX_SAFE_INTEGER, { allowHardLinks: options.allowHardLinks });
      } catch (error) {
        if (error instanceof RefusedError) {
          options.onSkip?.(relative, error.message);
          continue;
        }
        throw error;
      }
      const { handle, stats: fileStats } = opened;
      try {
        // Readable (and runnable, if its owner may run it) by the sandbox user whoever owns it: the person's data,
        // skills included, is its owner's alone (0600, 0700) outside the workspace.
        const mode = (fileStats.mode & 0o777) | 0o444 | ((fileStats.mode & 0o100) !== 0 ? 0o111 : 0);
        await target.createFile(name, (out) => copyBytes(handle, out, fileStats.size), options.ownership, mode);
      } finally {
        await handle.close();
      }
    } else if (kind === 'link' && options.links === 'copy') {
      await target.symlink(await source.readlink(name), name);
    } else {
      options.onSkip?.(relative, kind === 'link' ? 'a symbolic link' : 'not a regular file (a FIFO, socket or device)');
    }
  }
}

/** Copies `size` bytes (no more: the file may grow while copied) in chunks, so a large file is never held whole. */
async function copyBytes(from: FileHandle, to: FileHandle, size: number): Promise<void> {
  const buffer = Buffer.alloc(Math.min(COPY_CHUNK, Math.max(1, size)));
  let position = 0;
  while (position < size) {
    const { bytesRead } = await from.read(buffer, 0, Math.min(buffer.length, size - position), position);
    if (bytesRead === 0) break;
    await to.write(buffer, 0, bytesRead, position);
    position += bytesRead;
  }
}

/**
 * Removes `name` from `parent` and everything below it, through pinned folders: a link is unlinked, never
 * followed; a folder swapped for a link while this runs is unlinked as a link. Returns false when something
 * could not be removed (the container kept adding files, or the tree is deeper than the limit).
 */
export async function removeTree(parent: PinnedDir, name: string, depth = 0): Promise<boolean> {
  const stats = await parent.lstat(name);
  if (!stats) return true;
  if (!stats.isDirectory()) {
    await parent.unlink(name).catch(ignoreMissing);
    return true;
  }
  if (depth >= TREE_DEPTH) return false;
  let dir: PinnedDir;
  try {
    dir = await parent.openDir(name);
  } catch {
    // Swapped for something else since the lstat: remove that instead, as a plain entry.
    await parent.unlink(name).catch(() => undefined);
    return (await parent.lstat(name)) === undefined;
  }
  let complete = true;
  await using(dir, async () => {
    for (const child of await dir.names()) {
      if (!(await removeTree(dir, child, depth + 1))) complete = false;
    }
  });
  try {
    await parent.rmdir(name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') complete = false;
  }
  return complete;
}

function ignoreMissing(error: unknown): void {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
}
