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
 * A glob as a RegExp over relative paths: `**` any number of folders, `*` and `?` within one name,
 * `{a,b}` alternatives, `[abc]` classes. A pattern without `/` matches a name at any depth (as ripgrep does).
 */
export function globToRegExp(pattern: string): RegExp {
  let source = '';
  let braces = 0;
  for (let index = 0; index < pattern.length; index += 1) {
    const char = pattern[index] ?? '';
    if (char === '*') {
      if (pattern[index + 1] === '*') {
        const slashAfter = pattern[index + 2] === '/';
        source += slashAfter ? '(?:.*/)?' : '.*';
        index += slashAfter ? 2 : 1;
      } else {
        source += '[^/]*';
      }
    } else if (char === '?') {
      source += '[^/]';
    } else if (char === '{') {
      braces += 1;
      source += '(?:';
    } else if (char === '}' && braces > 0) {
      braces -= 1;
      source += ')';
    } else if (char === ',' && braces > 0) {
      source += '|';
    } else if (char === '[') {
      const end = pattern.indexOf(']', index + 1);
      if (end === -1) {
        source += '\\[';
      } else {
        const body = pattern.slice(index + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\');
        source += `[${body}]`;
        index = end;
      }
    } else {
      source += char.replace(/[.+^$()|\\/]/g, '\\$&');
    }
  }
  while (braces-- > 0) source += ')';
  const anyDepth = !pattern.includes('/');
  return new RegExp(anyDepth ? `(?:^|/)${source}$` : `^${source}$`);
}
