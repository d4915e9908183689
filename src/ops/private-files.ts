import { chmodSync, readdirSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import type { LoadedConfig } from '../config/load.js';
import { DATABASE_FILE } from '../db/database.js';
import type { DoctorLine } from '../part.js';

/** A file or folder of the person's data, which no other account of the machine may read or change. */
export interface PrivatePath {
  path: string;
  /** What it is, for the person: "data_dir", "the database", "the log". */
  what: string;
  folder: boolean;
}

/** One thing `familiar doctor --fix` did to a mode, or could not do. */
export interface PrivacyFix {
  status: 'fixed' | 'failed';
  text: string;
}

/**
 * The person's data: the data folder (0700) with the database and its WAL files, the log and its rotated files, the
 * memory, skills and tools folders (their own 0700 when they live elsewhere), and `.env` (0600). Paths that do not
 * exist are left out. Files in a folder that is 0700 are out of other accounts' reach whatever their own mode; the
 * files named here are narrowed too, so a copy or a moved folder stays private.
 */
export function privatePaths(loaded: LoadedConfig): PrivatePath[] {
  const { config } = loaded;
  const candidates: PrivatePath[] = [
    { path: config.data_dir, what: 'data_dir', folder: true },
    ...['', '-wal', '-shm'].map((suffix) => ({ path: path.join(config.data_dir, `${DATABASE_FILE}${suffix}`), what: 'the database', folder: false })),
    { path: config.memory_dir, what: 'memory_dir', folder: true },
    { path: config.skills_dir, what: 'skills_dir', folder: true },
    { path: config.tools_dir, what: 'tools_dir', folder: true },
    ...(loaded.envFile !== undefined ? [{ path: loaded.envFile, what: 'the secrets file', folder: false }] : []),
    ...(config.log.file !== 'off' ? logFiles(config.log.file).map((file) => ({ path: file, what: 'the log', folder: false })) : []),
  ];
  const seen = new Set<string>();
  return candidates.filter((candidate) => {
    if (seen.has(candidate.path) || statOf(candidate.path) === undefined) return false;
    seen.add(candidate.path);
    return true;
  });
}

/**
 * `familiar start` and `familiar doctor`: a warning for each of the person's files that another account can read or
 * write (group or other bits set), and for one owned by another account, which could replace it (the database, a
 * memory file the prompt trusts). Contract: never throws.
 */
export function privacyChecks(loaded: LoadedConfig): DoctorLine[] {
  const lines: DoctorLine[] = [];
  const me = process.getuid?.();
  for (const entry of privatePaths(loaded)) {
    const stats = statOf(entry.path);
    if (!stats) continue;
    const mode = stats.mode & 0o777;
    if (me !== undefined && stats.uid !== me) {
      lines.push({
        status: 'warn', label: `${entry.path}: owned by uid ${stats.uid}, not by you (uid ${me})`,
        detail: `${entry.what}: that account can replace or read what is in it`,
        fix: `chown -R ${me} ${entry.path}, or run Familiar as uid ${stats.uid}`,
      });
      continue;
    }
    const others = exposure(mode, entry.folder);
    if (others === undefined) continue;
    lines.push({
      status: 'warn', label: `${entry.path}: ${others} by others (mode ${mode.toString(8)})`,
      detail: entry.folder ? `${entry.what}: your conversations, memory and files` : entry.what === 'the secrets file' ? 'it holds secrets' : `${entry.what}: your data`,
      fix: `chmod ${entry.folder ? '700' : '600'} ${entry.path} (or familiar doctor --fix)`,
    });
  }
  return lines;
}

/** `familiar doctor --fix`: each of the person's paths that we own narrowed to 0700 (folders) or 0600 (files). */
export function narrowPrivatePaths(loaded: LoadedConfig): PrivacyFix[] {
  const fixes: PrivacyFix[] = [];
  const me = process.getuid?.();
  for (const entry of privatePaths(loaded)) {
    const stats = statOf(entry.path);
    if (!stats) continue;
    const mode = stats.mode & 0o777;
    const wanted = entry.folder ? 0o700 : 0o600;
    if (exposure(mode, entry.folder) === undefined) continue;
    if (me !== undefined && me !== 0 && stats.uid !== me) {
      fixes.push({ status: 'failed', text: `${entry.path}: mode ${mode.toString(8)} and owned by uid ${stats.uid}, not you: ask its owner to chmod it` });
      continue;
    }
    try {
      chmodSync(entry.path, wanted);
      fixes.push({ status: 'fixed', text: `${entry.path}: mode ${mode.toString(8)} → ${wanted.toString(8)} (${entry.what === 'the secrets file' ? 'it holds secrets' : `${entry.what}: yours alone`})` });
    } catch (error) {
      fixes.push({ status: 'failed', text: `${entry.path}: ${(error as Error).message}` });
    }
  }
  return fixes;
}

/** What group and others may do: "readable and writable", "readable", "writable", "enterable" (a folder); or nothing. */
function exposure(mode: number, folder: boolean): string | undefined {
  const read = (mode & 0o044) !== 0;
  const write = (mode & 0o022) !== 0;
  if (read && write) return 'readable and writable';
  if (read) return 'readable';
  if (write) return 'writable';
  // A folder others may only enter still lets them open a file whose name they know.
  return folder && (mode & 0o011) !== 0 ? 'enterable' : undefined;
}

/** The log file and its rotated copies (familiar.log.1, .2, …). */
function logFiles(file: string): string[] {
  let names: string[];
  try {
    names = readdirSync(path.dirname(file));
  } catch {
    return [];
  }
  const base = path.basename(file);
  return [file, ...names.filter((name) => /^\d+$/.test(name.slice(base.length + 1)) && name.startsWith(`${base}.`)).map((name) => path.join(path.dirname(file), name))];
}

function statOf(file: string): Stats | undefined {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
}
