import type { Stats } from 'node:fs';
import type { Result } from '../lib/result.js';
import { RefusedError, using, type Ownership, type PinnedDir } from './pinned-dir.js';


/** A workspace's space, when it has a size limit (`tools.sandbox.workspace_mb`). */
export interface Usage {
  usedBytes: number;
  limitBytes: number;
  availableBytes: number;
}

const MIB = 1024 * 1024;

/** The words every "full" answer uses, for the model, the person and the operator alike. */
export function fullMessage(usage: Usage): string {
  const used = Math.min(Math.ceil(usage.usedBytes / MIB), Math.round(usage.limitBytes / MIB));
  return `the workspace is full (${used} MB of ${Math.round(usage.limitBytes / MIB)} MB); delete files or raise tools.sandbox.workspace_mb`;
}

/** True when less than 1 % (at least 1 MB) is left: what sandbox_exec reports after a command. */
export function nearlyFull(usage: Usage): boolean {
  return usage.availableBytes < Math.max(MIB, usage.limitBytes / 100);
}

/**
 * Splits a model-supplied path relative to the workspace into names. Refuses absolute paths, `~`, drive
 * letters, NUL bytes and `..`; `""`, `"."` and `"./"` name the workspace itself (no names).
 */
export function splitWorkspacePath(requested: string): Result<string[]> {
  const cleaned = requested.trim().replace(/\\/g, '/');
  if (cleaned.includes('\0')) return { success: false, error: 'the path contains a NUL byte' };
  if (cleaned.startsWith('/') || /^[a-zA-Z]:/.test(cleaned) || cleaned.startsWith('~')) {
    return { success: false, error: `"${requested}" is absolute; use a path relative to the workspace, e.g. "notes/todo.md"` };
  }
  const names = cleaned.split('/').filter((name) => name !== '' && name !== '.');
  if (names.includes('..')) return { success: false, error: `"${requested}" goes outside the workspace ("..") and is refused` };
  return { success: true, value: names };
}

/**
 * One operation's view of a conversation's workspace, rooted at a pinned folder (the workspace's own
 * filesystem when it has a size limit). Every path is walked name by name from that root with PinnedDir,
 * so no link is followed and no folder swapped in by the container can lead out. Close it when done.
 * Contract: methods throw errno errors (ENOENT, ENOSPC, …) and RefusedError; file-workspace.ts words them.
 */
export class WorkspaceFiles {
  constructor(
    readonly root: PinnedDir,
    readonly ownership: Ownership,
    private readonly limitBytes: number | undefined,
  ) {}

  /** The folder named by `names` (the root for none); refuses links and non-folders on the way. */
  async openFolder(names: readonly string[]): Promise<PinnedDir> {
    let current = this.root;
    for (const name of names) {
      let next: PinnedDir;
      try {
        next = await current.openDir(name);
      } finally {
        if (current !== this.root) await current.close();
      }
      current = next;
    }
    // A fresh handle for the root too, so the caller can close what it gets.
    return current === this.root ? this.root.reopen() : current;
  }

  /**
   * Runs `task` with the folder that holds the last name, and that name. With `create`, missing folders
   * on the way are made and handed to the sandbox user; `created` lists them (relative paths).
   */
  async inParent<T>(names: readonly string[], create: boolean, task: (dir: PinnedDir, name: string, created: string[]) => Promise<T>, ownership = this.ownership): Promise<T> {
    const name = names.at(-1);
    if (name === undefined) throw new RefusedError('folder', 'the path names the workspace itself, not a file');
    const created: string[] = [];
    let current = this.root;
    try {
      for (const part of names.slice(0, -1)) {
        let next: PinnedDir;
        if (create) {
          const made = await current.openOrMakeDir(part, ownership);
          if (made.created) created.push(made.dir.relative);
          next = made.dir;
        } else {
          next = await current.openDir(part);
        }
        if (current !== this.root) await current.close();
        current = next;
      }
      return await task(current, name, created);
    } finally {
      if (current !== this.root) await current.close();
    }
  }

  /** lstat of a path (never follows); undefined when it does not exist. */
  lstat(names: readonly string[]): Promise<Stats | undefined> {
    if (names.length === 0) return this.root.stat();
    return this.inParent(names, false, (dir, name) => dir.lstat(name)).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    });
  }

  /** A regular file's bytes (see PinnedDir.openFile for what is refused). */
  read(names: readonly string[], maxBytes: number): Promise<Buffer> {
    return this.inParent(names, false, (dir, name) => dir.readFile(name, maxBytes));
  }

  /**
   * Writes a file atomically, making missing folders; refuses a folder at the path. When the workspace
   * has a size limit and the content does not fit, fails with ENOSPC before writing anything.
   */
  async write(names: readonly string[], data: string | Buffer, ownership = this.ownership): Promise<{ existed: boolean }> {
    const bytes = typeof data === 'string' ? Buffer.byteLength(data) : data.length;
    const usage = await this.usage();
    if (usage && bytes > usage.availableBytes) throw noSpace();
    return this.inParent(names, true, async (dir, name) => {
      const before = await dir.lstat(name);
      if (before?.isDirectory()) throw new RefusedError('folder', `${dir.childRelative(name)} is a folder`);
      // Refused to say so, not because it is unsafe: rename would replace the link itself, never its target.
      if (before?.isSymbolicLink()) throw new RefusedError('link', `${dir.childRelative(name)} is a symbolic link`);
      await dir.writeFileAtomic(name, data, ownership);
      return { existed: before !== undefined };
    }, ownership);
  }

  /** Space used and left, when the workspace has a size limit. */
  async usage(): Promise<Usage | undefined> {
    if (this.limitBytes === undefined) return undefined;
    const info = await this.root.statfs();
    const availableBytes = info.bavail * info.bsize;
    return { usedBytes: Math.max(0, this.limitBytes - availableBytes), limitBytes: this.limitBytes, availableBytes: Math.max(0, availableBytes) };
  }

  /** Runs `task` with a fresh handle on the folder at `names`, closed afterwards. */
  withFolder<T>(names: readonly string[], task: (dir: PinnedDir) => Promise<T>): Promise<T> {
    return this.openFolder(names).then((dir) => using(dir, task));
  }

  close(): Promise<void> {
    return this.root.close();
  }
}

export function noSpace(): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error('no space left in the workspace');
  error.code = 'ENOSPC';
  return error;
}
