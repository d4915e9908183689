import { lstatSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { Result } from './result.js';

export type ResolvedPath = Result<{ absolute: string; relative: string }>;

/**
 * Resolves a model-supplied path inside `root`. Refuses absolute paths, `..` segments, NUL bytes and any
 * symlink (existing or in a parent) that leads outside. Contract: never throws.
 */
export function resolveInside(root: string, requested: string): ResolvedPath {
  const cleaned = requested.trim().replace(/\\/g, '/');
  if (cleaned === '' || cleaned.includes('\0')) return { success: false, error: 'the path is empty or invalid' };
  if (path.isAbsolute(cleaned) || /^[a-zA-Z]:/.test(cleaned) || cleaned.startsWith('~')) {
    return { success: false, error: `"${requested}" is absolute; use a path relative to the folder, e.g. "notes/todo.md"` };
  }
  const segments = cleaned.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) return { success: false, error: `"${requested}" goes outside the folder ("..") and is refused` };
  if (segments.length === 0) return { success: false, error: 'the path names the folder itself, not a file' };
  let realRoot: string;
  try {
    // libc's realpath: the same answer as Node's walk, at half the cost (this runs on every file tool call).
    realRoot = realpathSync.native(root);
  } catch {
    return { success: false, error: 'the folder does not exist' };
  }
  const absolute = path.join(realRoot, ...segments);
  // Walk down: every component that exists must resolve inside the root (catches symlinked files and folders).
  let current = realRoot;
  for (const segment of segments) {
    current = path.join(current, segment);
    let isLink = false;
    try {
      isLink = lstatSync(current).isSymbolicLink();
    } catch {
      break; // does not exist yet: nothing below it can be a link
    }
    if (isLink) {
      let target: string;
      try {
        target = realpathSync.native(current);
      } catch {
        return { success: false, error: `"${requested}" is a broken link and is refused` };
      }
      if (target !== realRoot && !target.startsWith(realRoot + path.sep)) {
        return { success: false, error: `"${requested}" is a link that leads outside the folder and is refused` };
      }
    }
  }
  return { success: true, value: { absolute, relative: segments.join('/') } };
}
