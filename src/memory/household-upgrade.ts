import { existsSync, mkdirSync, readdirSync, renameSync } from 'node:fs';
import path from 'node:path';
import type { Database } from '../db/database.js';
import type { Logger } from '../log.js';
import { SHARED_DIR } from './person-view.js';

interface MoveRow {
  path: string;
  target: string;
  moved_at: number | null;
}

/**
 * The first start with `people:` (docs/household.md): a single person's memory becomes the owner's. Every entry at
 * memory_dir's root except `people/` and `shared/` moves to `people/<owner>/` by rename (a file or a whole folder at
 * once, its bytes untouched). The plan is written to SQLite (`household_moves`) before anything moves and each entry is
 * marked once it has, so a crash half-way resumes where it stopped; an entry whose target already exists is moved
 * beside it under a new name, never over it. The records that name memory files by path (write history, outside-content
 * labels) follow, and jobs made before the household are the owner's. Then every person has a folder, and there is
 * shared/. Runs before the folder is watched; a second run finds nothing to do. Returns how many entries moved.
 */
export function upgradeToHousehold(deps: { root: string; db: Database; owner: string; people: readonly string[]; log: Logger }): number {
  const { root, db, owner, log } = deps;
  const ownerFolder = `people/${owner}`;
  mkdirSync(path.join(root, ownerFolder), { recursive: true, mode: 0o700 });
  const pending = (): MoveRow[] => db.prepare('SELECT path, target, moved_at FROM household_moves WHERE moved_at IS NULL ORDER BY path').all() as MoveRow[];
  let moves = pending();
  if (moves.length === 0) {
    const entries = readdirSync(root).filter((name) => name !== 'people' && name !== SHARED_DIR);
    if (entries.length > 0) {
      const insert = db.prepare('INSERT OR IGNORE INTO household_moves (path, target, planned_at) VALUES (?, ?, ?)');
      const now = Date.now();
      db.transaction(() => {
        for (const name of entries) insert.run(name, `${ownerFolder}/${freeName(root, ownerFolder, name)}`, now);
      })();
      moves = pending();
      log.info({ owner, entries: moves.length }, `household: moving the memory folder's files into ${ownerFolder}/ (once; recorded, so a stop half-way resumes)`);
    }
  } else log.warn({ owner, left: moves.length }, 'household: resuming the move of the memory folder that a stop cut short');
  const mark = db.prepare('UPDATE household_moves SET moved_at = ? WHERE path = ?');
  for (const move of moves) {
    const from = path.join(root, move.path);
    const to = path.join(root, move.target);
    if (existsSync(from)) {
      mkdirSync(path.dirname(to), { recursive: true, mode: 0o700 });
      renameSync(from, to);
    } else if (!existsSync(to)) {
      log.warn({ path: move.path }, 'household: an entry planned for the move is gone (removed by hand?); nothing to move');
    }
    // The records that name the file follow it in the same step as its mark: a resumed move never updates them twice.
    db.transaction(() => {
      retarget(db, move.path, move.target);
      mark.run(Date.now(), move.path);
    })();
  }
  if (moves.length > 0) db.prepare('UPDATE jobs SET person = ? WHERE person IS NULL').run(owner);
  for (const name of [...deps.people.map((person) => `people/${person}`), SHARED_DIR]) mkdirSync(path.join(root, name), { recursive: true, mode: 0o700 });
  return moves.length;
}

/** History rows and labels that name the entry (a file, or anything under a folder) now name its new place. */
function retarget(db: Database, from: string, to: string): void {
  const like = `${from.replace(/[\\%_]/g, (character) => `\\${character}`)}/%`;
  db.prepare(`UPDATE memory_history SET path = ? || substr(path, ?) WHERE path = ? OR path LIKE ? ESCAPE '\\'`).run(to, from.length + 1, from, like);
  db.prepare(`UPDATE OR IGNORE provenance SET key = ? || substr(key, ?) WHERE kind = 'memory' AND (key = ? OR key LIKE ? ESCAPE '\\')`).run(to, from.length + 1, from, like);
}

/** The entry's name in the owner's folder: its own, or, when that is taken, one beside it. */
function freeName(root: string, folder: string, name: string): string {
  if (!existsSync(path.join(root, folder, name))) return name;
  const extension = path.extname(name);
  const stem = name.slice(0, name.length - extension.length);
  for (let index = 1; ; index += 1) {
    const candidate = `${stem}.before-household${index === 1 ? '' : `-${index}`}${extension}`;
    if (!existsSync(path.join(root, folder, candidate))) return candidate;
  }
}
