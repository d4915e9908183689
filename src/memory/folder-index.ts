import { watch, lstatSync, readdirSync, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { compareCodePoints } from '../lib/compare.js';

export interface IndexedFile {
  path: string;
  size: number;
  mtimeMs: number;
}

/** Text files only; names starting with a dot (editors' swap files, .git) are not memory at any depth. */
export const TEXT_FILE = /\.(md|markdown|txt)$/i;
const isMemoryName = (name: string): boolean => !name.startsWith('.');

/**
 * The memory folder's files and their sizes and times, kept in memory and brought up to date by what changed rather
 * than by reading the folder again: one walk at start, then a watch on each folder (inotify on Linux). A change is
 * noted when the system reports it (or at once, for the store's own writes: `touched`) and the path alone is looked
 * at again on the next use, so a turn costs no system call while nothing changed, however many files there are.
 *
 * Why a watch and not the folders' change times: a folder's mtime moves when an entry is added, removed or renamed,
 * not when a file in it is edited in place (`echo >> notes/a.md`, most editors' save), so a hand edit to a file in
 * a subfolder would go unseen. Every folder is watched (not only the root) because inotify reports changes to the
 * entries of the watched folder only.
 *
 * A hand edit is seen once the event loop has taken the system's report, which the kernel queues before the write
 * returns: any message that arrives afterwards (through a socket, a timer) finds it. When a watch cannot be set up
 * (inotify's limit reached, a file system without change reports) or fails later, `healthy` turns false and the
 * store goes back to reading the folder on every use.
 */
export class FolderIndex {
  private readonly root: string;
  private readonly files = new Map<string, IndexedFile>();
  private readonly watchers = new Map<string, FSWatcher>();
  /** Folder-relative paths reported changed and not yet looked at ('' is the root folder). */
  private readonly dirty = new Set<string>();
  /** Every file by path, and newest first; made by a sort after a walk, then kept in order change by change. */
  private byPath: readonly IndexedFile[] | undefined;
  private byTime: readonly IndexedFile[] | undefined;
  /** Inside a walk or a folder's removal: many changes at once, the orders are sorted again on next use. */
  private bulk = 0;
  private failed = false;
  private changes = 0;

  constructor(root: string) {
    this.root = root;
  }

  /** Walks the folder and watches it. False (nothing kept) when a watch cannot be set up. */
  start(): boolean {
    this.failed = false;
    this.scanFolder('');
    if (this.failed) this.close();
    return !this.failed;
  }

  /** Moves whenever a file is added, removed or changed (changes reported are looked at first): a key for caches. */
  get version(): number {
    this.settle();
    return this.changes;
  }

  get healthy(): boolean {
    return !this.failed && this.watchers.size > 0;
  }

  /** The store wrote or removed this file itself: seen at once, without waiting for the system's report. */
  touched(relative: string): void {
    this.dirty.add(relative);
  }

  /** The file's size and time, as of the last change seen. */
  get(relative: string): IndexedFile | undefined {
    this.settle();
    return this.files.get(relative);
  }

  /** Every file, sorted by path; the same array while nothing changed. */
  list(): readonly IndexedFile[] {
    this.settle();
    this.byPath ??= [...this.files.values()].sort(byPathOrder);
    return this.byPath;
  }

  /** Every file, the newest first (the same time: by path); the same array while nothing changed. */
  newest(): readonly IndexedFile[] {
    this.settle();
    this.byTime ??= [...this.files.values()].sort(newestFirst);
    return this.byTime;
  }

  close(): void {
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
    this.files.clear();
    this.dirty.clear();
    this.byPath = undefined;
    this.byTime = undefined;
  }

  /** Looks again at the paths reported changed: as many system calls as changes, not as files. */
  private settle(): void {
    if (this.dirty.size === 0) return;
    const paths = [...this.dirty];
    this.dirty.clear();
    for (const relative of paths) this.refresh(relative);
  }

  private refresh(relative: string): void {
    if (relative === '') {
      this.scanFolder('');
      return;
    }
    if (!relative.split('/').every(isMemoryName)) return;
    const parent = parentOf(relative);
    // A file in a folder not watched yet (the store's own write made the folder): that folder is read whole.
    if (!this.watchers.has(parent)) {
      this.refresh(parent);
      return;
    }
    let stats;
    try {
      stats = lstatSync(path.join(this.root, relative));
    } catch {
      this.forget(relative);
      return;
    }
    if (stats.isDirectory()) {
      this.forgetFile(relative);
      this.scanFolder(relative);
    } else if (stats.isFile() && TEXT_FILE.test(relative)) {
      this.forgetFolder(relative);
      this.setFile({ path: relative, size: stats.size, mtimeMs: stats.mtimeMs });
    } else {
      // A link (never followed) or another kind of file.
      this.forget(relative);
    }
  }

  /** Reads one folder (and the folders below it) again: entries gone are dropped, new ones added, all watched. */
  private scanFolder(relative: string): void {
    this.inBulk(() => this.scanEntries(relative));
  }

  private scanEntries(relative: string): void {
    const absolute = path.join(this.root, relative);
    let entries;
    try {
      entries = readdirSync(absolute, { withFileTypes: true });
    } catch {
      this.forget(relative);
      return;
    }
    this.watchFolder(relative, absolute);
    const prefix = relative === '' ? '' : `${relative}/`;
    const present = new Set<string>();
    for (const entry of entries) {
      if (!isMemoryName(entry.name)) continue;
      const child = `${prefix}${entry.name}`;
      if (entry.isDirectory()) {
        present.add(child);
        if (!this.watchers.has(child)) this.scanFolder(child);
      } else if (entry.isFile() && TEXT_FILE.test(entry.name)) {
        present.add(child);
        try {
          const stats = lstatSync(path.join(absolute, entry.name));
          this.setFile({ path: child, size: stats.size, mtimeMs: stats.mtimeMs });
        } catch {
          present.delete(child); // removed between the listing and the look
        }
      }
    }
    // What this folder held before and no longer does (a report that named no file ends up here).
    for (const file of [...this.files.keys()]) if (parentOf(file) === relative && !present.has(file)) this.forgetFile(file);
    for (const folder of [...this.watchers.keys()]) if (folder !== '' && parentOf(folder) === relative && !present.has(folder)) this.forgetFolder(folder);
  }

  private watchFolder(relative: string, absolute: string): void {
    if (this.watchers.has(relative) || this.failed) return;
    try {
      // Not persistent: a watch must not keep a finished process alive.
      const watcher = watch(absolute, { persistent: false }, (_event, name) => {
        if (name === null) this.dirty.add(relative);
        else if (isMemoryName(name)) this.dirty.add(relative === '' ? name : `${relative}/${name}`);
      });
      watcher.on('error', () => {
        // The folder went away (its removal is also reported to its parent), or the watch broke: read it again.
        if (relative === '' && !this.failed) this.failed = true;
        this.dirty.add(relative);
      });
      this.watchers.set(relative, watcher);
    } catch {
      this.failed = true;
    }
  }

  private setFile(file: IndexedFile): void {
    const known = this.files.get(file.path);
    if (known && known.size === file.size && known.mtimeMs === file.mtimeMs) return;
    this.files.set(file.path, file);
    this.changed(known, file);
  }

  private forget(relative: string): void {
    this.forgetFile(relative);
    this.forgetFolder(relative);
  }

  private forgetFile(relative: string): void {
    const known = this.files.get(relative);
    if (known && this.files.delete(relative)) this.changed(known, undefined);
  }

  /** A folder removed or renamed: its watch and everything below it. */
  private forgetFolder(relative: string): void {
    if (relative === '') return;
    this.inBulk(() => this.forgetBelow(relative));
  }

  private forgetBelow(relative: string): void {
    const below = `${relative}/`;
    for (const [folder, watcher] of [...this.watchers]) {
      if (folder === relative || folder.startsWith(below)) {
        watcher.close();
        this.watchers.delete(folder);
      }
    }
    for (const file of [...this.files.keys()]) if (file.startsWith(below)) this.forgetFile(file);
  }

  /** Many changes at once (a walk, a folder's removal): the orders are sorted again on next use, not mended each time. */
  private inBulk(run: () => void): void {
    this.bulk += 1;
    try {
      run();
    } finally {
      this.bulk -= 1;
    }
  }

  /** One file added, changed or removed: the orders are mended in place of a sort (a search and a copy each). */
  private changed(before: IndexedFile | undefined, after: IndexedFile | undefined): void {
    this.changes += 1;
    if (this.bulk > 0) {
      this.byPath = undefined;
      this.byTime = undefined;
      return;
    }
    if (this.byPath) this.byPath = mended(this.byPath, before, after, byPathOrder);
    if (this.byTime) this.byTime = mended(this.byTime, before, after, newestFirst);
  }
}

const byPathOrder = (a: IndexedFile, b: IndexedFile): number => compareCodePoints(a.path, b.path);
/** The newest first; files of the same time by path. */
export const newestFirst = (a: IndexedFile, b: IndexedFile): number => b.mtimeMs - a.mtimeMs || compareCodePoints(a.path, b.path);

/**
 * A sorted list with `before` taken out and `after` put in its place in the order, as a new array: a caller may be
 * holding the old one. `compare` orders distinct paths strictly, so each file has one place.
 */
function mended(list: readonly IndexedFile[], before: IndexedFile | undefined, after: IndexedFile | undefined, compare: (a: IndexedFile, b: IndexedFile) => number): readonly IndexedFile[] {
  const copy = list.slice();
  if (before) {
    const at = firstNotBefore(copy, before, compare);
    if (copy[at] === before) copy.splice(at, 1);
  }
  if (after) copy.splice(firstNotBefore(copy, after, compare), 0, after);
  return copy;
}

/** The first index whose entry does not sort before `file` (a binary search). */
function firstNotBefore(list: readonly IndexedFile[], file: IndexedFile, compare: (a: IndexedFile, b: IndexedFile) => number): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compare(list[middle] as IndexedFile, file) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

function parentOf(relative: string): string {
  const index = relative.lastIndexOf('/');
  return index === -1 ? '' : relative.slice(0, index);
}
