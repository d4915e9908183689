import { closeSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { Sqlite } from './sqlite.js';
import { AppError } from '../errors.js';
import { MIGRATIONS, type Migration } from './migrations.js';

export type Database = BetterSqlite3.Database;

export const DATABASE_FILE = 'familiar.db';

/**
 * Opens (creating if needed) the one SQLite file under `dataDir`, in WAL mode, and brings it to the
 * latest schema. Contract: throws AppError `DB_TOO_NEW` for a database written by a newer Familiar.
 */
export function openDatabase(dataDir: string, migrations: readonly Migration[] = MIGRATIONS): Database {
  // The person's alone: a new data folder is 0700 and a new database 0600, whose mode SQLite gives its WAL files too.
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  closeSync(openSync(path.join(dataDir, DATABASE_FILE), 'a', 0o600));
  const db = new Sqlite(path.join(dataDir, DATABASE_FILE));
  try {
    db.pragma('journal_mode = WAL');
    // NORMAL is durable across process crashes in WAL mode; only a power loss can drop the last commits.
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    // better-sqlite3 builds SQLite with a 16 MB page cache, which fills as the file grows and reads as memory
    // growth over days. SQLite's own default, 2 MB, holds the hot pages (recent messages, turns, the indexes'
    // right edges; a conversation's history is cached parsed in memory anyway); the OS file cache holds the rest.
    db.pragma('cache_size = -2000');
    migrate(db, migrations);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** Applies pending migrations, each in its own transaction together with the version bump. */
export function migrate(db: Database, migrations: readonly Migration[]): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  const latest = migrations.length;
  if (current > latest) {
    throw new AppError(
      'DB_TOO_NEW',
      `database schema version ${current} is newer than this Familiar understands (${latest}); upgrade Familiar or restore a backup`,
    );
  }
  for (let version = current + 1; version <= latest; version += 1) {
    const migration = migrations[version - 1];
    if (!migration) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.pragma(`user_version = ${version}`);
    })();
  }
}

export function schemaVersion(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}
