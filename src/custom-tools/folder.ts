/**
 * What is in `tools_dir`: the modules and script tools to load (its top level only), and a fingerprint of everything
 * under it, so a reload happens only when a file changed. Code loads only from inside the folder: a file that is a
 * link to somewhere else, or that others on the machine may write, is refused.
 */
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, realpathSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../errors.js';
import { failure, succeed, type Result } from '../lib/result.js';
import { claimedScript } from './script-tool.js';

const MODULE = /\.(m?js|m?ts)$/;
const SPEC = /\.ya?ml$/;
/** Not loaded from the top level: hidden and `_helper` files, tests, type declarations. */
const SKIPPED = /^[._]|\.(test|spec)\.[^.]+$|\.d\.m?ts$/;

export interface FolderEntry {
  kind: 'module' | 'script';
  /** Absolute path. */
  file: string;
  /** As shown to the person: the name in the folder. */
  name: string;
}

export interface FolderScan {
  entries: FolderEntry[];
  /** The names of the files at the top level (hidden, `_helper` and test files aside). */
  files: string[];
  /** Files refused before loading (a link out of the folder, writable by others). */
  refused: Array<{ file: string; error: string }>;
  /** Changes when any file under the folder changes (node_modules and hidden folders aside). */
  fingerprint: string;
}

/** The folder's entries, sorted by name. Contract: never throws (a missing folder is an empty one). */
export function scanFolder(dir: string): FolderScan {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return { entries: [], files: [], refused: [], fingerprint: '' };
  }
  const folderProblem = writableByOthers(dir);
  if (folderProblem) return { entries: [], files: [], refused: [{ file: dir, error: `the folder ${folderProblem}` }], fingerprint: fingerprint(dir) };
  const files = names.filter((name) => !SKIPPED.test(name) && isFile(path.join(dir, name)));
  const claimed = new Set(files.filter((name) => SPEC.test(name)).map((name) => claimedScript(path.join(dir, name), files)).filter((name): name is string => name !== undefined));
  const entries: FolderEntry[] = [];
  const refused: FolderScan['refused'] = [];
  for (const name of files) {
    const kind = SPEC.test(name) ? 'script' : MODULE.test(name) && !claimed.has(name) ? 'module' : undefined;
    if (!kind) continue;
    const file = path.join(dir, name);
    const safe = confinedFile(dir, file);
    if (!safe.success) refused.push({ file, error: safe.error });
    else entries.push({ kind, file, name });
  }
  return { entries, files, refused, fingerprint: fingerprint(dir) };
}

/**
 * `file` if it is inside `dir` once links are followed and nobody else may write it (or the folder it sits in);
 * else why not.
 */
export function confinedFile(dir: string, file: string): Result<string> {
  let real: string;
  let realDir: string;
  try {
    real = realpathSync(file);
    realDir = realpathSync(dir);
  } catch (error) {
    return failure(`cannot be read (${errorMessage(error)})`);
  }
  const relative = path.relative(realDir, real);
  if (relative === '' || relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) {
    const what = real === path.resolve(file) ? `${real} is outside ${dir}` : `is a link to ${real}, outside ${dir}`;
    return failure(`${what}; code loads only from the tools folder itself (copy the file in)`);
  }
  const problem = writableByOthers(real) ?? writableByOthers(path.dirname(real));
  if (problem) return failure(problem);
  return succeed(real);
}

/** Anyone on the machine could change code that runs with the daemon's rights: said, with the fix. */
function writableByOthers(file: string): string | undefined {
  let stats: Stats;
  try {
    stats = statSync(file);
  } catch {
    return undefined;
  }
  // A sticky folder (like /tmp) still lets others add files, just not replace ours; a tools folder should not be one.
  if ((stats.mode & 0o002) !== 0) return `is writable by every user of this machine (chmod o-w ${file})`;
  return undefined;
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** sha256 of a file's content (what the start-up listing shows). */
export function sha256Of(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** Names, sizes and modification times of everything under `dir`: cheap, and any edit changes it. */
function fingerprint(dir: string): string {
  const hash = createHash('sha256');
  // The folder's own mode too: made writable by others, its modules are unloaded.
  try {
    hash.update(`.\0${statSync(dir).mode}\n`);
  } catch {
    return '';
  }
  const walk = (folder: string, depth: number): void => {
    if (depth > 8) return;
    let names: string[];
    try {
      names = readdirSync(folder).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      const file = path.join(folder, name);
      let stats: Stats;
      try {
        stats = lstatSync(file);
      } catch {
        continue;
      }
      hash.update(`${path.relative(dir, file)}\0${stats.size}\0${stats.mtimeMs}\0${stats.mode}\n`);
      if (stats.isDirectory()) walk(file, depth + 1);
      else if (stats.isSymbolicLink()) {
        try {
          const target = statSync(file);
          hash.update(`->${target.size}\0${target.mtimeMs}\n`);
        } catch {
          hash.update('->missing\n');
        }
      }
    }
  };
  walk(dir, 0);
  return hash.digest('hex');
}
