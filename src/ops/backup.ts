import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Sqlite } from '../db/sqlite.js';
import * as tar from 'tar';
import type { Config } from '../config/schema.js';
import { DATABASE_FILE } from '../db/database.js';
import { AppError, errorMessage } from '../errors.js';

export interface BackupOptions {
  config: Config;
  /** Folder the backup goes in; default `<data_dir>/backups`. */
  outDir?: string;
  /** The config file and the `.env` beside it (secrets: the backup is private to its owner). */
  configFile?: string;
  envFile?: string;
  /** Pack the backup folder into `<name>.tar.gz` (and remove the folder). */
  tarball?: boolean;
  now?: Date;
}

export interface BackupResult {
  /** The backup folder, or the .tar.gz file. */
  path: string;
  manifest: BackupManifest;
}

export interface BackupManifest {
  createdAt: string;
  schemaVersion: number | null;
  database: string | null;
  memory: string | null;
  skills: string | null;
  /** Your own tools (tools_dir), without node_modules (reinstalled with npm install). */
  tools?: string | null;
  /** The conversations' files (sandbox workspaces, received attachments). */
  workspaces: string | null;
  config: string | null;
  env: string | null;
  rows: Record<string, number>;
}

/**
 * Writes a consistent copy of the database (SQLite's online backup: safe while the daemon runs and
 * writes) and copies of the memory and skills folders into `<outDir>/familiar-backup-<timestamp>`.
 * Memory files are replaced by atomic renames, so each copied file is a whole version of itself.
 * Contract: throws AppError BACKUP_FAILED (with the cause) and leaves no partial backup behind.
 */
export async function createBackup(options: BackupOptions): Promise<BackupResult> {
  const { config } = options;
  const outDir = path.resolve(options.outDir ?? path.join(config.data_dir, 'backups'));
  const name = `familiar-backup-${timestamp(options.now ?? new Date())}`;
  const target = path.join(outDir, name);
  if (existsSync(target)) throw new AppError('BACKUP_FAILED', `${target} already exists; wait a second or choose another --out`);
  try {
    mkdirSync(target, { recursive: true });
    // Conversations and memory are personal: the backup is readable by its owner only.
    chmodSync(target, 0o700);
    const manifest: BackupManifest = {
      createdAt: (options.now ?? new Date()).toISOString(), schemaVersion: null, database: null, memory: null, skills: null, tools: null,
      workspaces: null, config: null, env: null, rows: {},
    };
    const source = path.join(config.data_dir, DATABASE_FILE);
    if (existsSync(source)) {
      await backupDatabase(source, path.join(target, DATABASE_FILE), manifest);
      manifest.database = DATABASE_FILE;
    }
    const folders = [['memory', config.memory_dir], ['skills', config.skills_dir], ['tools', config.tools_dir], ['workspaces', path.join(config.data_dir, 'workspaces')]] as const;
    for (const [key, dir] of folders) {
      if (!existsSync(dir) || !statSync(dir).isDirectory()) continue;
      cpSync(dir, path.join(target, key), {
        recursive: true, preserveTimestamps: true, verbatimSymlinks: true,
        filter: (source) => key !== 'tools' || path.basename(source) !== 'node_modules',
      });
      manifest[key] = key;
    }
    for (const [key, file, name] of [['config', options.configFile, path.basename(options.configFile ?? 'config.yaml')], ['env', options.envFile, '.env']] as const) {
      if (file === undefined || !existsSync(file)) continue;
      copyFileSync(file, path.join(target, name));
      chmodSync(path.join(target, name), 0o600);
      manifest[key] = name;
    }
    writeFileSync(path.join(target, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
    if (!options.tarball) return { path: target, manifest };
    const file = `${target}.tar.gz`;
    await tar.create({ gzip: true, file, cwd: outDir, portable: true }, [name]);
    chmodSync(file, 0o600);
    rmSync(target, { recursive: true, force: true });
    return { path: file, manifest };
  } catch (error) {
    rmSync(target, { recursive: true, force: true });
    rmSync(`${target}.tar.gz`, { force: true });
    if (error instanceof AppError) throw error;
    throw new AppError('BACKUP_FAILED', `backup to ${outDir} failed: ${errorMessage(error)}`, { cause: error });
  }
}

async function backupDatabase(source: string, destination: string, manifest: BackupManifest): Promise<void> {
  // Its own read-only connection, without migrations: a database from a newer version is backed up as it is.
  const db = new Sqlite(source, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    await db.backup(destination);
  } finally {
    db.close();
  }
  const copy = new Sqlite(destination);
  try {
    // The copy is a single file: no WAL to carry around.
    copy.pragma('journal_mode = DELETE');
    const check = copy.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new AppError('BACKUP_FAILED', `the copied database fails its integrity check: ${String(check)}`);
    manifest.schemaVersion = copy.pragma('user_version', { simple: true }) as number;
    const tables = copy.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name").all() as Array<{ name: string }>;
    for (const { name } of tables) {
      if (name.startsWith('memory_fts_')) continue;
      manifest.rows[name] = (copy.prepare(`SELECT COUNT(*) AS n FROM "${name.replaceAll('"', '""')}"`).get() as { n: number }).n;
    }
  } finally {
    copy.close();
  }
  chmodSync(destination, 0o600);
}

/** `20261122-051003` in UTC: sortable, and the same whatever the server's zone. */
function timestamp(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, '').replaceAll('-', '').replace('T', '-').replaceAll(':', '');
}
