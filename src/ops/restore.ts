import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import * as tar from 'tar';
import type { Config } from '../config/schema.js';
import { DATABASE_FILE, openDatabase } from '../db/database.js';
import { MIGRATIONS } from '../db/migrations.js';
import { AppError, errorMessage } from '../errors.js';
import type { BackupManifest } from './backup.js';

/** A backup opened for restoring: its folder (unpacked when it was a .tar.gz) and what it holds. */
export interface OpenedBackup {
  dir: string;
  manifest: BackupManifest;
  /** Removes what unpacking made; a backup folder given as it is stays. */
  close(): void;
}

/** What `restore` put in place, and where what it replaced went. */
export interface RestoreResult {
  restored: string[];
  /** The folder holding what was there before (nothing is deleted), when anything was. */
  replacedInto?: string;
}

/**
 * Opens a `familiar backup` folder or `.tar.gz` and reads its manifest. A database from a newer Familiar is refused
 * here, before anything changes. Contract: throws AppError RESTORE_FAILED saying what is wrong with the backup.
 */
export async function openBackup(source: string, scratch: string): Promise<OpenedBackup> {
  if (!existsSync(source)) throw new AppError('RESTORE_FAILED', `${source} does not exist: give a folder or .tar.gz made by familiar backup`);
  let dir = source;
  let close = (): void => undefined;
  if (statSync(source).isFile()) {
    mkdirSync(scratch, { recursive: true, mode: 0o700 });
    const unpacked = mkdtempSync(path.join(scratch, '.restore-'));
    close = () => rmSync(unpacked, { recursive: true, force: true });
    try {
      await tar.extract({ file: source, cwd: unpacked, strict: true, preservePaths: false });
    } catch (error) {
      close();
      throw new AppError('RESTORE_FAILED', `${source} is not a .tar.gz made by familiar backup (${errorMessage(error)})`, { cause: error });
    }
    const [inner] = readdirSync(unpacked);
    dir = path.join(unpacked, inner ?? '');
  }
  const manifestFile = path.join(dir, 'manifest.json');
  if (!existsSync(manifestFile)) {
    close();
    throw new AppError('RESTORE_FAILED', `${source} has no manifest.json: it is not a backup made by familiar backup`);
  }
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as BackupManifest;
  if ((manifest.schemaVersion ?? 0) > MIGRATIONS.length) {
    close();
    throw new AppError('RESTORE_FAILED', `the backup's database has schema version ${manifest.schemaVersion ?? 0}, newer than this Familiar understands (${MIGRATIONS.length}): upgrade Familiar first, then restore`);
  }
  return { dir, manifest, close };
}

/**
 * The backup's config.yaml and `.env`, put where the command line reads them — only where there is none yet (a new
 * machine): a config the person has is theirs, and the backup's copy is named for them to compare. Returns what it did.
 */
export function restoreConfigFiles(backup: OpenedBackup, configFile: string): string[] {
  const said: string[] = [];
  const pairs = [[backup.manifest.config, configFile], [backup.manifest.env, path.join(path.dirname(configFile), '.env')]] as const;
  for (const [name, target] of pairs) {
    if (name === null || name === undefined) continue;
    const copy = path.join(backup.dir, name);
    if (existsSync(target)) {
      if (readFileSync(target, 'utf8') !== readFileSync(copy, 'utf8')) said.push(`kept your ${target} (the backup's ${name} differs and is not restored over it)`);
      continue;
    }
    mkdirSync(path.dirname(target), { recursive: true });
    copyFileSync(copy, target);
    chmodSync(target, 0o600);
    said.push(`restored ${target}`);
  }
  return said;
}

/**
 * Puts the backup's database, memory, skills, tools and workspaces where this config keeps them. What is there
 * already is refused unless `replace`, and then moved into `<data_dir>/replaced-<stamp>/`, never deleted. The
 * database is opened once at the end, which applies the migrations an older backup needs and proves it opens.
 * The caller holds the daemon lock. Contract: throws AppError RESTORE_FAILED (nothing replaced when it is refused).
 */
export function restoreData(backup: OpenedBackup, config: Config, options: { replace: boolean; now?: Date }): RestoreResult {
  const { manifest } = backup;
  const targets: Array<{ name: string; from: string; to: string; file: boolean }> = [];
  if (manifest.database) targets.push({ name: 'the database', from: path.join(backup.dir, manifest.database), to: path.join(config.data_dir, DATABASE_FILE), file: true });
  const folders = [['memory', config.memory_dir], ['skills', config.skills_dir], ['tools', config.tools_dir], ['workspaces', path.join(config.data_dir, 'workspaces')]] as const;
  for (const [key, dir] of folders) {
    const name = manifest[key];
    if (name) targets.push({ name: key, from: path.join(backup.dir, name), to: dir, file: false });
  }
  const taken = targets.filter((target) => existsSync(target.to) && (target.file || readdirSync(target.to).length > 0));
  if (taken.length > 0 && !options.replace) {
    throw new AppError('RESTORE_FAILED', `there is data here already: ${taken.map((target) => target.to).join(', ')}; nothing was changed. Run again with --force to restore over it (what is there is moved aside, not deleted)`);
  }
  mkdirSync(config.data_dir, { recursive: true, mode: 0o700 });
  let replacedInto: string | undefined;
  const stamp = (options.now ?? new Date()).toISOString().replace(/\.\d+Z$/, '').replaceAll(':', '').replaceAll('-', '');
  const aside = (file: string): void => {
    if (!existsSync(file)) return;
    replacedInto ??= path.join(config.data_dir, `replaced-${stamp}`);
    mkdirSync(replacedInto, { recursive: true, mode: 0o700 });
    const destination = path.join(replacedInto, path.basename(file));
    try {
      renameSync(file, destination);
    } catch (error) {
      // Another file system (a memory_dir elsewhere): copied, then removed.
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
      cpSync(file, destination, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
      rmSync(file, { recursive: true, force: true });
    }
  };
  const restored: string[] = [];
  try {
    for (const target of targets) {
      if (target.file) {
        for (const suffix of ['', '-wal', '-shm']) aside(`${target.to}${suffix}`);
        copyFileSync(target.from, target.to);
        chmodSync(target.to, 0o600);
      } else {
        aside(target.to);
        cpSync(target.from, target.to, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
        chmodSync(target.to, 0o700);
      }
      restored.push(`${target.name} → ${target.to}`);
    }
    if (manifest.database) openDatabase(config.data_dir).close();
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError('RESTORE_FAILED', `restoring into ${config.data_dir} failed after ${restored.length} of ${targets.length} parts (${errorMessage(error)})${replacedInto ? `; what was there is in ${replacedInto}` : ''}`, { cause: error });
  }
  return { restored, ...(replacedInto ? { replacedInto } : {}) };
}
