import type { Minimatch as MinimatchClass } from 'minimatch';
import { requireOnUse } from '../lib/folded.js';
import { kindOf, type EntryKind, type PinnedDir } from './pinned-dir.js';

export interface WalkEntry {
  /** Relative to the walk's root, with `/` separators. */
  relative: string;
  kind: EntryKind;
  size: number;
  mtimeMs: number;
  ino: number;
}

export interface WalkOptions {
  /** Stop after this many entries. */
  limit?: number;
  /** Folders deeper than this are listed but not entered (a hostile tree can be thousands deep). */
  maxDepth?: number;
  /** Called for each regular file while its folder is held open, e.g. to read it (grep). */
  onFile?: (dir: PinnedDir, name: string, entry: WalkEntry) => Promise<void>;
}

export const WALK_LIMIT = 20_000;
export const WALK_DEPTH = 64;

/**
 * Every entry under `root`, depth first, through pinned folders (see PinnedDir): links are listed, never
 * entered; a folder swapped for a link between listing and entering is skipped; at most `maxDepth` folders
 * are held open at once. `truncated` says the limit or the depth cut the walk short. Unreadable folders are skipped.
 */
export async function walk(root: PinnedDir, options: WalkOptions = {}): Promise<{ entries: WalkEntry[]; truncated: boolean }> {
  const limit = options.limit ?? WALK_LIMIT;
  const maxDepth = options.maxDepth ?? WALK_DEPTH;
  const entries: WalkEntry[] = [];
  let truncated = false;

  async function visit(dir: PinnedDir, prefix: string, depth: number): Promise<boolean> {
    let names: string[];
    try {
      names = await dir.names();
    } catch {
      return true;
    }
    for (const name of names) {
      if (entries.length >= limit) {
        truncated = true;
        return false;
      }
      const stats = await dir.lstat(name).catch(() => undefined);
      if (!stats) continue;
      const entry: WalkEntry = { relative: `${prefix}${name}`, kind: kindOf(stats), size: stats.size, mtimeMs: stats.mtimeMs, ino: stats.ino };
      entries.push(entry);
      if (entry.kind === 'file' && options.onFile) await options.onFile(dir, name, entry);
      if (entry.kind !== 'dir') continue;
      if (depth + 1 >= maxDepth) {
        truncated = true;
        continue;
      }
      let child: PinnedDir;
      try {
        child = await dir.openDir(name);
      } catch {
        continue;
      }
      let more: boolean;
      try {
        more = await visit(child, `${entry.relative}/`, depth + 1);
      } finally {
        await child.close();
      }
      if (!more) return false;
    }
    return true;
  }

  await visit(root, '', 0);
  return { entries, truncated };
}

/**
 * A glob over relative paths (minimatch): `**` any number of folders, `*` and `?` within one name, `{a,b}`
 * alternatives, `[abc]` and `[!abc]` classes; dot-files match like any other. A pattern without `/` matches a name
 * at any depth (as ripgrep does). `!` and `#` at the start are literal: the model asks for files, not exclusions.
 */
export function globMatcher(pattern: string): { test(relative: string): boolean } {
  // Loaded at the first glob, not with every daemon that has a sandbox configured.
  const { Minimatch } = requireOnUse<{ Minimatch: typeof MinimatchClass }>('minimatch');
  const glob = new Minimatch(pattern, { dot: true, matchBase: !pattern.includes('/'), nonegate: true, nocomment: true });
  return { test: (relative) => glob.match(relative) };
}
