import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Database } from '../db/database.js';
import { currentPerson, type ActingPerson } from '../lib/person-scope.js';
import type { MemoryHit } from '../tools/context.js';
import { resolveInside, type ResolvedPath } from '../lib/paths.js';

/**
 * A person's view of the memory folder in a household (docs/household.md): their own folder `people/<name>/` seen as
 * the folder's root (`profile.md` is their profile), plus `shared/` as itself. Nothing else is visible: another
 * person's folder, the folder's root. Paths the model gives are confined to the person's folder by the same rules as
 * everywhere (no absolute paths, no `..`, no link leading out of it), so `../ann/profile.md` or a link into another
 * folder is refused before anything is read. The stored path (relative to memory_dir) is what the store keeps
 * (search index, history, labels); the shown path is what the person and the model see.
 */

export const SHARED_DIR = 'shared';

/** Where a requested path is, for this person: `relative` is the stored path (memory_dir-relative). */
export function resolveForPerson(root: string, person: ActingPerson, requested: string, made = new Set<string>()): ResolvedPath {
  // A guest (in no person's ids) is not of the household: no folder, and not shared/ either.
  if (person.folder === undefined) return { success: false, error: 'you have no memory folder here (a guest): the owner can add you with familiar people link' };
  const cleaned = requested.trim().replace(/\\/g, '/').replace(/^(?:\.\/)+/, '');
  if (cleaned === SHARED_DIR || cleaned.startsWith(`${SHARED_DIR}/`)) {
    return within(root, SHARED_DIR, cleaned.slice(SHARED_DIR.length + 1), requested, made);
  }
  return within(root, person.folder, cleaned, requested, made);
}

/** A stored path (history, labels), refused when the person in scope (if any) may not see it. */
export function resolveStoredFor(root: string, person: ActingPerson | undefined, stored: string): ResolvedPath {
  const resolved = resolveInside(root, stored);
  if (!person || !resolved.success || shownPath(person, resolved.value.relative) !== undefined) return resolved;
  return { success: false, error: `${stored} is not in your folder or shared/` };
}

/** The path this person sees for a stored path, or undefined when it is not theirs to see. */
export function shownPath(person: ActingPerson, stored: string): string | undefined {
  const folder = person.folder;
  if (folder === undefined) return undefined;
  if (stored.startsWith(`${SHARED_DIR}/`)) return stored;
  if (!stored.startsWith(`${folder}/`)) return undefined;
  const shown = stored.slice(folder.length + 1);
  // A folder of their own named shared/ would be mistaken for the household's: it is not shown.
  return shown.startsWith(`${SHARED_DIR}/`) ? undefined : shown;
}

/** The stored path of a path as this person (if any) sees it (the inverse of `shownPath`). */
export function storedPath(person: ActingPerson | undefined, shown: string): string {
  return shown.startsWith(`${SHARED_DIR}/`) || person?.folder === undefined ? shown : `${person.folder}/${shown}`;
}

/** Throws unless this person may write a stored path: their own folder; shared/ only the owner, or through a share. */
export function checkWritable(person: ActingPerson, stored: string): void {
  if (!stored.startsWith(`${SHARED_DIR}/`) || person.role === 'owner' || person.sharing === true) return;
  throw new Error('shared/ is read by everyone and written by the owner; to share one of your files, use memory_share (the owner is asked)');
}

/**
 * The store's household: whose view the current call has (lib/person-scope.ts), and which search hits that person may
 * see: their files and shared/, past chats only in their own turns (the owner's also turns from before the household).
 * Without a person in scope (the console, the command line, the daemon's own work) the whole folder is seen.
 */
export class HouseholdView {
  private readonly household: { owner: string; personOfTurn: (turnId: string) => string | null | undefined };

  constructor(db: Database, owner: string) {
    const statement = db.prepare('SELECT person FROM turns WHERE id = ?');
    this.household = { owner, personOfTurn: (turnId) => (statement.get(turnId) as { person: string | null } | undefined)?.person };
  }

  /** The folders made (or found) already: a person's folder is checked once per process, not on every path. */
  readonly made = new Set<string>();
  /** Each person's files in prompt order, for the folder's version they were sorted at. */
  private readonly order = new Map<string, { version: number; files: readonly unknown[] }>();

  person(): ActingPerson | undefined {
    return currentPerson();
  }

  /** A person's files in prompt order, sorted again only when the folder changed (as the single person's are). */
  ordered<F>(person: ActingPerson, version: number, sort: () => readonly F[]): readonly F[] {
    const cached = this.order.get(person.name);
    if (cached?.version === version) return cached.files as readonly F[];
    const files = sort();
    this.order.set(person.name, { version, files });
    return files;
  }

  /** For a search of `limit` hits as the person in scope: how many to rank, and the person's among them. */
  visible(limit: number): { wanted: number; hits: <H extends MemoryHit>(hits: readonly H[]) => H[] } | undefined {
    const person = currentPerson();
    if (!person) return undefined;
    return { wanted: limit * 4 + 20, hits: (hits) => visibleHits(person, hits, this.household).slice(0, limit) };
  }
}

function within(root: string, folder: string, inside: string, requested: string, made: Set<string>): ResolvedPath {
  const base = path.join(root, folder);
  // A person added while the daemon runs has no folder yet: it is made on first use (once per process).
  if (!made.has(base)) {
    mkdirSync(base, { recursive: true, mode: 0o700 });
    made.add(base);
  }
  const resolved = resolveInside(base, inside === '' ? '.' : inside);
  if (!resolved.success) return { success: false, error: resolved.error.replaceAll(`"${inside}"`, `"${requested}"`).replace('the folder', folder === SHARED_DIR ? 'shared/' : 'your folder') };
  return { success: true, value: { absolute: resolved.value.absolute, relative: `${folder}/${resolved.value.relative}` } };
}

/** The files a person sees, by the paths they see them under (no person: all of them). */
export function visibleTo<F extends { path: string }>(person: ActingPerson | undefined, files: F[]): F[] {
  if (!person) return files;
  return files.flatMap((file) => {
    const shown = shownPath(person, file.path);
    return shown === undefined ? [] : [{ ...file, path: shown }];
  });
}

/**
 * A person's search hits: their files and shared/ (as they see them), and past chats' messages of their own turns (the
 * owner's also those of turns from before the household, which name nobody).
 */
export function visibleHits<H extends MemoryHit>(person: ActingPerson, hits: readonly H[], household: { owner: string; personOfTurn: (turnId: string) => string | null | undefined }): H[] {
  return hits.flatMap((hit) => {
    if (hit.conversation) {
      const turnId = hit.conversation.turnId;
      const owner = turnId === null ? undefined : household.personOfTurn(turnId);
      return owner === person.name || (owner === null && person.name === household.owner) ? [hit] : [];
    }
    const shown = shownPath(person, hit.path);
    return shown === undefined ? [] : [{ ...hit, path: shown }];
  });
}
