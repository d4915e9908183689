import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';

export interface WalkEntry {
  /** Relative to the walk's root, with `/` separators. */
  relative: string;
  absolute: string;
  kind: 'file' | 'dir' | 'link' | 'other';
  size: number;
  mtimeMs: number;
  ino: number;
}

/**
 * Every entry under `root`, depth first, never following symbolic links (a link is listed, not entered),
 * stopping after `limit` entries. Unreadable folders are skipped.
 */
export async function walk(root: string, limit = 20_000): Promise<{ entries: WalkEntry[]; truncated: boolean }> {
  const entries: WalkEntry[] = [];
  const pending: string[] = [''];
  while (pending.length > 0) {
    const relativeDir = pending.pop() ?? '';
    let names: string[];
    try {
      names = (await readdir(path.join(root, relativeDir))).sort();
    } catch {
      continue;
    }
    for (const name of names) {
      if (entries.length >= limit) return { entries, truncated: true };
      const relative = relativeDir === '' ? name : `${relativeDir}/${name}`;
      const absolute = path.join(root, relative);
      let stats;
      try {
        stats = await lstat(absolute);
      } catch {
        continue;
      }
      const kind = stats.isSymbolicLink() ? 'link' : stats.isDirectory() ? 'dir' : stats.isFile() ? 'file' : 'other';
      entries.push({ relative, absolute, kind, size: stats.size, mtimeMs: stats.mtimeMs, ino: stats.ino });
      if (kind === 'dir') pending.push(relative);
    }
  }
  return { entries, truncated: false };
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
