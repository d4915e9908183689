import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const load = createRequire(import.meta.url);

/**
 * better-sqlite3, in the release this Node runs. Version 13 is built on Node-API 10 (Node 22.14 and later, so 24, the
 * current LTS), and fixes the finalizer that aborted version 12 on Node 24 (`Assertion failed: (env) != nullptr`);
 * it ships its binaries for every platform, so nothing is compiled. Node 20 (Node-API 9) cannot load it and keeps
 * version 12 (`better-sqlite3-node20`, an optional dependency built from source at install).
 */
function loadSqlite(): typeof BetterSqlite3 {
  if (Number(process.versions.napi) >= 10) return load('better-sqlite3') as typeof BetterSqlite3;
  try {
    return load('better-sqlite3-node20') as typeof BetterSqlite3;
  } catch (error) {
    throw new Error(`Node ${process.versions.node} needs better-sqlite3 12, which did not install (npm install builds it; it needs python3, make and g++). Node 22 or 24 needs no build.`, { cause: error });
  }
}

export const Sqlite = loadSqlite();
export type SqliteDatabase = BetterSqlite3.Database;
