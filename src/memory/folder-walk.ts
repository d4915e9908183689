import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { compareCodePoints } from '../lib/compare.js';
import { TEXT_FILE, type IndexedFile } from './folder-index.js';

/** A folder listing is trusted only when taken this long after the folder last changed. */
const RACY_MS = 2000;

interface DirectoryListing {
  mtimeMs: number;
  listedAt: number;
  entries: Array<{ name: string; directory: boolean }>;
}

/** The memory folder read on each use, for when it is not watched: what a one-shot command and a failed watch use. */
export class FolderWalk {
  private readonly root: string;
  private listings = new Map<string, DirectoryListing>();

  constructor(root: string) {
    this.root = root;
  }

  /** Forgets the folders' listings (the folder is watched from now on). */
  clear(): void {
    this.listings.clear();
  }

  /** Reads the folder: its folders' listings reused while their mtimes say nothing was added or removed, each file stat'ed. */
  walk(): IndexedFile[] {
    const files: IndexedFile[] = [];
    const listings = new Map<string, DirectoryListing>();
    const walk = (dir: string, prefix: string) => {
      const entries = this.entriesOf(dir, listings);
      for (const entry of entries) {
        const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
        const absolute = path.join(dir, entry.name);
        // Links are skipped in listings: a link leading out must not be followed by a walk.
        if (entry.directory) walk(absolute, relative);
        else {
          try {
            const stats = statSync(absolute);
            files.push({ path: relative, size: stats.size, mtimeMs: stats.mtimeMs });
          } catch {
            // removed between readdir and stat
          }
        }
      }
    };
    walk(this.root, '');
    this.listings = listings;
    return files.sort((a, b) => compareCodePoints(a.path, b.path));
  }

  /**
   * A folder's text files and subfolders. The last listing is reused while the folder's mtime is unchanged
   * (adding, removing or renaming an entry changes it), unless that mtime was close to the listing's time: a
   * change in the same clock tick would not show, so such a listing is never trusted (as git does with racy
   * entries). Files are still stat'ed on every use, so edits inside them show at once.
   */
  private entriesOf(dir: string, listings: Map<string, DirectoryListing>): DirectoryListing['entries'] {
    let mtimeMs: number;
    try {
      mtimeMs = statSync(dir).mtimeMs;
    } catch {
      return [];
    }
    const previous = this.listings.get(dir);
    if (previous && previous.mtimeMs === mtimeMs && previous.listedAt - mtimeMs > RACY_MS) {
      listings.set(dir, previous);
      return previous.entries;
    }
    const listedAt = Date.now();
    let dirents;
    try {
      dirents = readdirSync(dir, { withFileTypes: true });
    } catch {
      return [];
    }
    const entries = dirents
      .filter((entry) => !entry.name.startsWith('.') && (entry.isDirectory() || (entry.isFile() && TEXT_FILE.test(entry.name))))
      .map((entry) => ({ name: entry.name, directory: entry.isDirectory() }));
    listings.set(dir, { mtimeMs, listedAt, entries });
    return entries;
  }
}
