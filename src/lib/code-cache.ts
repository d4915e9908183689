import { lstatSync, mkdirSync, readFileSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Script } from 'node:vm';
import { processAlive } from './process-alive.js';

// How the `familiar` executable loads its bundles (scripts/bundle.mjs): each is one CommonJS function, compiled with
// V8's code cache. A start spent a third of its time compiling the daemon's code; with the cache, V8 takes the
// compiled code of every function the last start ran instead of compiling it again (start 173 → 125 ms,
// `familiar tools list` 199 → 118 ms; docs/BENCHMARKS.md). Node 20 has no code cache for ES modules (Node 22's
// module.enableCompileCache has one, and still serves what is loaded from outside the bundles); this one works alike
// on 20, 22 and 24.
//
// The cache is written once per build, command and set of V8 flags, by the run that found none: `familiar start` once
// it is ready, a one-shot command when it exits 0. V8 checks the cache against its own version and flags and the
// source's length; the build's hash in the file's name covers the source's content, which the length alone would not.
// A cache is code this process runs, so it is read only from a folder of this user's that nobody else may write to.

/** Where the code caches go: FAMILIAR_CODE_CACHE (a folder, or `off`), else the user's cache folder; undefined: none. */
export function codeCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const setting = env.FAMILIAR_CODE_CACHE;
  if (setting === 'off' || setting === '0') return undefined;
  const userCache = env.XDG_CACHE_HOME || (env.HOME && path.join(env.HOME, '.cache'));
  const dir = setting ? path.resolve(setting) : userCache ? path.join(userCache, 'familiar', 'code') : undefined;
  if (!dir) return undefined;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return ownFolder(dir) ? dir : undefined;
  } catch {
    return undefined; // a read-only or missing home: the bundle is compiled as without a cache
  }
}

/** A real folder (not a link to one) of this user's that no one else may write to. */
function ownFolder(dir: string): boolean {
  const stat = lstatSync(dir);
  return stat.isDirectory() && stat.uid === process.getuid?.() && (stat.mode & 0o022) === 0;
}

export interface CacheKey {
  /** The folder, from codeCacheDir. */
  dir: string;
  /** What ran: `start`, or the command line's command (`cli-tools`); each keeps the functions it runs. */
  name: string;
  /** The bundle's content hash (scripts/bundle.mjs). */
  build: string;
  /** The V8 flags the executable set before compiling, as a word (`daemon`, `liftoff`). */
  flags: string;
}

export interface LoadedBundle<T> {
  exports: T;
  /** `used`: the cache was taken; `missing` or `rejected`: compiled, and save() writes one; `off`: no cache folder. */
  cache: 'used' | 'missing' | 'rejected' | 'off';
  /** Writes the cache of what has been compiled so far, when there was none to take (once). Never throws. */
  save(): boolean;
}

/**
 * Runs `file`, a bundle written as `(function (exports, require, module, __filename, __dirname, __familiarImport) { … })`,
 * and returns its exports. The bundle's `import()` of a package or a file URL is a call of __familiarImport
 * (scripts/bundle.mjs): an `import()` made here, which resolves a package as from beside the bundle.
 */
export function loadBundle<T>(file: string, key: CacheKey | undefined): LoadedBundle<T> {
  const cacheFile = key ? path.join(key.dir, `${key.name}-${key.build}-${key.flags}-${processKey()}-${installKey(file)}.v8`) : undefined;
  let cachedData: Buffer | undefined;
  if (cacheFile) {
    try {
      cachedData = readFileSync(cacheFile);
    } catch {
      cachedData = undefined;
    }
  }
  // The bundle is ASCII (scripts/bundle.mjs): read as Latin-1, Node hands V8 a one-byte string kept outside the heap.
  let script: Script | undefined = new Script(readFileSync(file, 'latin1'), { filename: file, cachedData });
  const cache = !cacheFile ? 'off' : !cachedData ? 'missing' : script.cachedDataRejected === true ? 'rejected' : 'used';
  const module = { exports: {} as T };
  (script.runInThisContext() as (...args: unknown[]) => void).call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file), importOutside);
  if (cache === 'used' || cache === 'off') script = undefined;
  return {
    exports: module.exports,
    cache,
    save() {
      if (!script || !cacheFile || !key) return false;
      const compiled = script;
      script = undefined;
      try {
        const data = compiled.createCachedData();
        const partial = `${cacheFile}.${process.pid}.partial`;
        writeFileSync(partial, data, { mode: 0o600 });
        renameSync(partial, cacheFile); // whole or not at all: another process may be reading it
        removeOtherBuilds(key, installKey(file));
        return true;
      } catch {
        return false;
      }
    },
  };
}

/** Caches of another install, unwritten this long, are taken for those of an install that is gone. */
const OTHER_INSTALL_DAYS = 90;

/**
 * The caches of this install's earlier builds of the same entry are of no more use, nor a half-written one
 * (`<cache>.<pid>.partial`) whose writer is gone (a run killed while it wrote). Another install's (a checkout beside an
 * installed Familiar, run in turn) are kept: removed, each would compile at every run; they go once unwritten for
 * OTHER_INSTALL_DAYS.
 */
function removeOtherBuilds(key: CacheKey, install: string): void {
  for (const name of readdirSync(key.dir)) {
    const file = path.join(key.dir, name);
    const writer = /\.v8\.(\d+)\.partial$/.exec(name)?.[1];
    const ours = name.endsWith(`-${install}.v8`);
    const stale = name.endsWith('.v8') && (ours
      ? name.startsWith(`${key.name}-`) && !name.startsWith(`${key.name}-${key.build}-`)
      : olderThan(file, OTHER_INSTALL_DAYS));
    if (stale || (writer !== undefined && !processAlive(Number(writer)))) {
      try {
        unlinkSync(file);
      } catch {
        // another process removed it first
      }
    }
  }
}

function olderThan(file: string, days: number): boolean {
  try {
    return Date.now() - statSync(file).mtimeMs > days * 86_400_000;
  } catch {
    return false;
  }
}

/**
 * What else makes V8 refuse a cache: its version (Node's), the machine, and the flags Node was given. In the name, so
 * that runs with different flags keep a cache each instead of replacing each other's.
 */
function processKey(): string {
  return fnv([process.version, process.arch, ...process.execArgv, process.env.NODE_OPTIONS ?? ''].join('\0'));
}

/** Which install the bundle is (its folder): each keeps its own caches (removeOtherBuilds). */
function installKey(file: string): string {
  return fnv(path.dirname(path.dirname(file)));
}

/** FNV-1a, 32 bits, as 8 hex digits: a name, not a check (V8 checks). */
function fnv(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193) >>> 0;
  return hash.toString(16).padStart(8, '0');
}

/** The bundle's `import()` of a package or a file URL; no bundle imports a relative path (scripts/bundle.mjs). */
function importOutside(specifier: string): Promise<unknown> {
  return import(specifier);
}
