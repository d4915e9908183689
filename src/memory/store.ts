import { readFileSync, statSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Database } from '../db/database.js';
import { StaleWriteError } from '../errors.js';
import { writeFileAtomic, KeyedMutex } from '../lib/atomic-write.js';
import { resolveInside, type ResolvedPath } from '../lib/paths.js';
import type { ActingPerson } from '../lib/person-scope.js';
import type { MemoryAccess } from '../tools/context.js';
import { FolderIndex, newestFirst } from './folder-index.js';
import { FolderWalk } from './folder-walk.js';
import type { HybridSearch } from './search/hybrid-search.js';
import { MemorySearchIndex, type SearchHit } from './search/search-index.js';
import { buildSnapshot, type MemorySnapshot } from './snapshot.js';
import { checkWritable, HouseholdView, resolveForPerson, resolveStoredFor, shownPath, storedPath, visibleTo } from './person-view.js';

export type { MemorySnapshot } from './snapshot.js';

export interface MemoryFile {
  path: string;
  size: number;
  mtimeMs: number;
}

export type { SearchHit } from './search/search-index.js';

export interface WriteOptions {
  mode?: 'overwrite' | 'append';
  conversationId?: string;
  /**
   * Compare-and-swap: the content the caller read and changed (null: the file must not exist yet). If the file
   * on disk differs when the write happens (a hand edit in between), nothing is written and the write throws
   * a StaleWriteError, so the caller can read again and redo its change. Such a write needs no prior memory_read.
   */
  expected?: string | null;
  /** Writes made as one change (a consolidation): recorded under this id, undone together. */
  batch?: string;
}

export interface WriteEvent {
  path: string;
  previous: string | null;
  /** null: the file was removed. */
  content: string | null;
  conversationId: string | undefined;
  batch?: string | undefined;
}

export interface WriteGuardEvent {
  path: string;
  mode: 'overwrite' | 'append';
  conversationId: string | undefined;
  /** The caller named the content it changed (`expected`), and the store checks it: no blind overwrite. */
  checked: boolean;
}

/** Files that explain the folder to the person; readable by tools but kept out of the prompt. */
const NOT_IN_PROMPT = new Set(['README.md']);
const FIRST_IN_PROMPT = ['profile.md', 'persona.md'];
/** A prompt filter, and what it depends on besides the folder (the same value while its answers stay the same). */
interface PromptFilter {
  keep: (path: string, content: string) => boolean;
  dependsOn: (() => unknown) | undefined;
}

/**
 * The memory folder: Markdown files the person can edit by hand. Reads are fresh (checked by mtime and size on every
 * use); writes are atomic and serialised per file; search is SQLite FTS5 kept in sync. Once `watch()` is called (the
 * running daemon), the folder's listing is kept up to date by change reports instead of read again on every use, and
 * the prompt's memory section is built again only when a file, the budget or a filter's input changed.
 */
export class MemoryStore implements MemoryAccess {
  readonly root: string;
  /** Entries of every file, for search: derived from the files, brought up to date before each search. */
  readonly searchIndex: MemorySearchIndex;
  private readonly mutex = new KeyedMutex();
  private readonly cache = new Map<string, { mtimeMs: number; size: number; content: string }>();
  /** The folder read on each use, while it is not watched (a one-shot command, or a watch that failed). */
  private readonly walker: FolderWalk;
  private readonly listeners: Array<(event: WriteEvent) => void | Promise<void>> = [];
  private readonly guards: Array<(event: WriteGuardEvent) => string | undefined> = [];
  private readonly promptFilters: PromptFilter[] = [];
  private folder: FolderIndex | undefined;
  private hybrid: HybridSearch | undefined;
  private promptCache: { key: readonly unknown[]; value: { persona: string | undefined; snapshot: MemorySnapshot } } | undefined;
  private readonly outsideLabelers: Array<(path: string, content: string) => string | undefined> = [];
  /** Set in a household: each call sees the folder as the person in scope does (person-view.ts). */
  private household: HouseholdView | undefined;
  /** The last path resolved, until the synchronous job that resolved it ends (see `resolve`). */
  private recent: { person: ActingPerson | undefined; requested: string; resolved: ResolvedPath } | undefined;

  constructor(root: string, db: Database) {
    this.root = root;
    this.searchIndex = new MemorySearchIndex(db);
    this.walker = new FolderWalk(root);
  }

  /** A household (`people:`): from now on a call made as a person sees their folder and shared/ (person-view.ts). */
  useHousehold(db: Database, owner: string): void {
    this.household = new HouseholdView(db, owner);
  }

  /** The person whose view this call has; undefined: the whole folder (and always outside a household). */
  private viewer(): ActingPerson | undefined {
    return this.household?.person();
  }

  /** Called after every write made through the store (memory history builds on it). */
  onWrite(listener: (event: WriteEvent) => void | Promise<void>): void {
    this.listeners.push(listener);
  }

  /** A guard may refuse a write with a reason the model can act on (e.g. the file changed on disk). */
  addWriteGuard(guard: (event: WriteGuardEvent) => string | undefined): void {
    this.guards.push(guard);
  }

  /**
   * Files for which `keep` returns false stay out of the system prompt (still reachable through the tools). `keep` is
   * given the text the file would show. Its answers may change only with the file or with what `dependsOn` returns
   * (compared by identity): the prompt's memory section is reused while both stay the same.
   */
  addPromptFilter(keep: (path: string, content: string) => boolean, dependsOn?: () => unknown): void {
    this.promptFilters.push({ keep, dependsOn });
  }

  /**
   * Keeps the listing up to date by watching the folder (the running daemon): no system call per turn while nothing
   * changed. False, and the folder is read on every use as before, when the system cannot watch it.
   */
  watch(): boolean {
    if (this.folder?.healthy) return true;
    const folder = new FolderIndex(this.root);
    if (!folder.start()) return false;
    this.folder = folder;
    this.walker.clear();
    return true;
  }

  /** Stops watching the folder. */
  close(): void {
    this.folder?.close();
    this.folder = undefined;
  }

  /** The watched folder, while its watch works. */
  private watched(): FolderIndex | undefined {
    if (this.folder && !this.folder.healthy) this.close();
    return this.folder;
  }

  /**
   * A labeler names the outside source of a file's text (a note saved from a web page: its URL), or undefined.
   * Tools that return such text wrap it as outside content and taint the turn (`outsideSource`).
   */
  addOutsideLabeler(labeler: (path: string, content: string) => string | undefined): void {
    this.outsideLabelers.push(labeler);
  }

  /** The outside source of a file's text, if a labeler knows one. Contract: never throws. */
  outsideSource(path: string, content: string): string | undefined {
    // The folder-relative path a labeler knows the file by ("./notes//a.md" → "notes/a.md").
    const resolved = this.resolve(path);
    const relative = resolved.success ? resolved.value.relative : path;
    for (const labeler of this.outsideLabelers) {
      try {
        const source = labeler(relative, content);
        if (source !== undefined) return source;
      } catch {
        // A labeler that fails labels nothing; the others still decide.
      }
    }
    return undefined;
  }

  /** Where a requested path is; `relative` is the stored path (relative to the folder's root). */
  resolve(requested: string): ResolvedPath {
    const person = this.viewer();
    // A read resolves its path three times in one synchronous job (the read, its outside label, its history note):
    // the answer is kept until the job ends, when anything this process does to the folder could change it.
    const recent = this.recent;
    if (recent && recent.requested === requested && recent.person === person) return recent.resolved;
    const resolved = person ? resolveForPerson(this.root, person, requested, this.household?.made) : resolveInside(this.root, requested);
    if (!recent) queueMicrotask(() => (this.recent = undefined));
    this.recent = { person, requested, resolved };
    return resolved;
  }

  /** A stored path (history, labels), refused when the person in scope may not see it. */
  resolveStored(stored: string) {
    return resolveStoredFor(this.root, this.viewer(), stored);
  }

  list(): MemoryFile[] {
    return visibleTo(this.viewer(), this.allFiles());
  }

  /** Every file of the folder by its stored path, whoever asks (the search index covers them all). */
  private allFiles(): MemoryFile[] {
    const folder = this.watched();
    return folder ? [...folder.list()] : this.walker.walk();
  }

  /** Reads a file fresh (cached only while mtime and size are unchanged). Throws on a refused path. */
  read(requested: string): string {
    const resolved = this.resolve(requested);
    if (!resolved.success) throw new Error(resolved.error);
    return this.readAbsolute(resolved.value.absolute, resolved.value.relative);
  }

  private readAbsolute(absolute: string, relative: string, stats: { mtimeMs: number; size: number } = statSync(absolute)): string {
    const cached = this.cache.get(relative);
    if (cached && cached.mtimeMs === stats.mtimeMs && cached.size === stats.size) return cached.content;
    const content = readFileSync(absolute, 'utf8');
    this.cache.set(relative, { mtimeMs: stats.mtimeMs, size: stats.size, content });
    return content;
  }

  async write(requested: string, content: string, options: WriteOptions = {}): Promise<{ path: string; bytes: number; previous: string | null }> {
    const resolved = this.resolve(requested);
    if (!resolved.success) throw new Error(resolved.error);
    const mode = options.mode ?? 'overwrite';
    const checked = options.expected !== undefined;
    const person = this.viewer();
    if (person) checkWritable(person, resolved.value.relative);
    return this.mutex.run(resolved.value.relative, async () => {
      for (const guard of this.guards) {
        const refusal = guard({ path: resolved.value.relative, mode, conversationId: options.conversationId, checked });
        if (refusal) throw new Error(refusal);
      }
      const previous = await readOrNull(resolved.value.absolute);
      if (checked && previous !== options.expected) throw new StaleWriteError(resolved.value.relative);
      let next = content;
      if (mode === 'append' && previous !== null && previous !== '') {
        next = previous.endsWith('\n') || content.startsWith('\n') ? previous + content : `${previous}\n${content}`;
      }
      await writeFileAtomic(resolved.value.absolute, next);
      this.cache.delete(resolved.value.relative);
      this.folder?.touched(resolved.value.relative);
      this.index(resolved.value.relative, next, resolved.value.absolute);
      for (const listener of this.listeners) {
        await listener({ path: resolved.value.relative, previous, content: next, conversationId: options.conversationId, batch: options.batch });
      }
      return { path: person ? (shownPath(person, resolved.value.relative) ?? resolved.value.relative) : resolved.value.relative, bytes: Buffer.byteLength(next), previous };
    });
  }

  /**
   * Removes a file (recorded like a write, with content null, so history can put it back). With `expected`,
   * refused (StaleWriteError) when the file changed since the caller read it. Returns false if it did not exist.
   */
  async remove(requested: string, options: { conversationId?: string; expected?: string } = {}): Promise<boolean> {
    const resolved = this.resolve(requested);
    if (!resolved.success) throw new Error(resolved.error);
    const person = this.viewer();
    if (person) checkWritable(person, resolved.value.relative);
    return this.mutex.run(resolved.value.relative, async () => {
      const previous = await readOrNull(resolved.value.absolute);
      if (previous === null) return false;
      if (options.expected !== undefined && previous !== options.expected) throw new StaleWriteError(resolved.value.relative);
      await rm(resolved.value.absolute, { force: true });
      this.cache.delete(resolved.value.relative);
      this.folder?.touched(resolved.value.relative);
      this.searchIndex.remove(resolved.value.relative);
      for (const listener of this.listeners) {
        await listener({ path: resolved.value.relative, previous, content: null, conversationId: options.conversationId });
      }
      return true;
    });
  }

  /**
   * Full-text search over every memory file's entries and the messages of past chats, after bringing the index up to
   * date with the folder and the messages written since.
   */
  search(query: string, limit = 10): SearchHit[] {
    this.syncIndex();
    // In a household others' entries are dropped after ranking: ask for more, so the person's own still fill the limit.
    const view = this.household?.visible(limit);
    return view ? view.hits(this.searchIndex.described(this.searchIndex.search(query, view.wanted))) : this.searchIndex.described(this.searchIndex.search(query, limit));
  }

  /** Search by meaning too, from now on (an embedder is configured). */
  useHybridSearch(hybrid: HybridSearch): void {
    this.hybrid = hybrid;
  }

  /** Words and meaning when an embedder is configured (falling back to words when it fails), else words. */
  async recall(query: string, limit = 10): Promise<SearchHit[]> {
    if (!this.hybrid) return this.search(query, limit);
    const view = this.household?.visible(limit);
    return view ? view.hits(await this.hybrid.search(query, view.wanted)) : this.hybrid.search(query, limit);
  }

  /** Re-indexes files added, changed or removed on disk since the last sync (hand edits included), and new messages. */
  syncIndex(): void {
    this.searchIndex.sync(this.allFiles(), (relative) => {
      try {
        return readFileSync(path.join(this.root, relative), 'utf8');
      } catch {
        return undefined;
      }
    });
    this.searchIndex.conversations.sync();
  }

  private index(relative: string, content: string, absolute: string): void {
    try {
      this.searchIndex.update(relative, content, statSync(absolute));
    } catch {
      // the next sync will catch up
    }
  }

  /**
   * The memory section of the system prompt, within `budget` characters: profile.md and persona.md first, then the
   * rest newest first (`snapshot.ts` says what is left out and how).
   */
  snapshot(budget: number, exclude: ReadonlySet<string> = new Set(), ordered: Iterable<MemoryFile> = this.orderedForPrompt()): MemorySnapshot {
    return buildSnapshot({
      ordered,
      ...(Array.isArray(ordered) ? {} : { total: this.watched()?.newest().length }),
      skip: (file) => NOT_IN_PROMPT.has(file) || exclude.has(file),
      budget,
      // The listing's stats serve as the freshness check: no second stat per file.
      read: (file) => this.readShown(file),
      keep: (file, content) => this.promptFilters.every((filter) => filter.keep(storedPath(this.viewer(), file), content)),
    });
  }

  /**
   * What the system prompt takes from the folder, from one listing: the persona from `persona.md` when
   * `withPersona` (and the file has text), and the budgeted snapshot of the other files. While the folder is
   * watched, the same answer is returned until a file, the budget or a filter's input changes.
   */
  forPrompt(budget: number, withPersona: boolean): { persona: string | undefined; snapshot: MemorySnapshot } {
    const folder = this.watched();
    const person = this.viewer();
    if (!folder) return this.buildForPrompt(budget, withPersona, visibleTo(person, this.walker.walk()));
    const ordered = person ? this.household?.ordered(person, folder.version, () => promptOrder(visibleTo(person, [...folder.newest()]))) ?? [] : this.orderedForPrompt();
    const key = [folder.version, budget, withPersona, person?.name, ...this.promptFilters.map((filter) => filter.dependsOn?.())];
    const cached = this.promptCache;
    if (cached && cached.key.length === key.length && cached.key.every((value, index) => value === key[index])) return cached.value;
    const value = this.buildForPrompt(budget, withPersona, ordered);
    this.promptCache = { key, value };
    return value;
  }

  private buildForPrompt(budget: number, withPersona: boolean, files: Iterable<MemoryFile>): { persona: string | undefined; snapshot: MemorySnapshot } {
    let persona: string | undefined;
    // In a household a person's own persona.md, else the household's shared/persona.md.
    const personaFile = withPersona ? (this.listed('persona.md', files) ?? (this.viewer() ? this.listed('shared/persona.md', files) : undefined)) : undefined;
    if (personaFile) {
      try {
        persona = this.readShown(personaFile).trim() || undefined;
      } catch {
        // removed since the listing: the default persona applies
      }
    }
    return { persona, snapshot: this.snapshot(budget, persona === undefined ? new Set() : new Set([personaFile?.path ?? 'persona.md']), files) };
  }

  /** A listed file's content, by the path the caller sees it under (cached by its stored path). */
  private readShown(file: MemoryFile): string {
    const stored = storedPath(this.viewer(), file.path);
    return this.readAbsolute(path.join(this.root, stored), stored, file);
  }

  /** A file of the listing by the path the caller sees (the watched folder's by its index: no walk of the list). */
  private listed(shown: string, files: Iterable<MemoryFile>): MemoryFile | undefined {
    const folder = this.watched();
    if (folder && !this.viewer()) return folder.get(shown);
    for (const file of files) if (file.path === shown) return file;
    return undefined;
  }

  /**
   * The files in prompt order. The watched folder's are read from its newest-first order as the prompt's walk goes,
   * so a walk that stops when the budget is spent costs what it looked at, however many files there are.
   */
  private orderedForPrompt(): Iterable<MemoryFile> {
    const folder = this.watched();
    if (!folder) return promptOrder(this.walker.walk());
    return { [Symbol.iterator]: () => inPromptOrder((name) => folder.get(name), folder.newest()) };
  }
}

/** profile.md and persona.md first (found by `byPath`), then the files of `newest` but those, in its order. */
function* inPromptOrder(byPath: (name: string) => MemoryFile | undefined, newest: Iterable<MemoryFile>): Generator<MemoryFile> {
  for (const name of FIRST_IN_PROMPT) {
    const first = byPath(name);
    if (first) yield first;
  }
  for (const file of newest) if (!FIRST_IN_PROMPT.includes(file.path)) yield file;
}

/** A listing (a walk's, a person's view of the folder) in prompt order: the rest sorted newest first. */
function promptOrder(files: readonly MemoryFile[]): MemoryFile[] {
  return [...inPromptOrder((name) => files.find((file) => file.path === name), [...files].sort(newestFirst))];
}

async function readOrNull(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return null;
  }
}
