// The loader of the `familiar` executable's bundles (src/lib/code-cache.ts): a bundle runs the same with or without
// its code cache; a cache is written once, by the run that found none or found one V8 refused, and replaces the
// caches of earlier builds of the same entry only. Each load runs in a process of its own (the built module,
// `npm run build` first): within one process V8 keeps what it compiled, and would answer from memory, not the cache.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pathToFileURL } from 'node:url';
import { codeCacheDir, type CacheKey } from '../../src/lib/code-cache.js';
import { tempDir } from '../helpers/app.js';

/** A bundle as scripts/bundle.mjs writes one: a CommonJS function with a few functions to compile. */
function writeBundle(dir: string, answer: number): string {
  const file = path.join(dir, 'bundle.cjs');
  const functions = Array.from({ length: 50 }, (_, index) => `function f${index}(x) { return x + ${index}; }`).join('\n');
  writeFileSync(file, `(function (exports, require, module, __filename, __dirname) {'use strict';\n${functions}\nexports.answer = () => f0(${answer}) + f49(0) - 49;\nexports.file = __filename;\nexports.path = require('node:path').sep;\n})`);
  return file;
}

interface Load {
  cache: string;
  answer: number;
  /** save() once, then again. */
  saved: [boolean, boolean];
}

/** Loads `file` in a new Node process through the built loader and saves its cache as the executable would. */
function load(file: string, key: CacheKey | undefined): Load {
  const loader = pathToFileURL(path.resolve('dist/lib/code-cache.js')).href;
  const script = `const { loadBundle } = await import(${JSON.stringify(loader)}); const loaded = loadBundle(${JSON.stringify(file)}, ${JSON.stringify(key)}); console.log(JSON.stringify({ cache: loaded.cache, answer: loaded.exports.answer(), file: loaded.exports.file, sep: loaded.exports.path, saved: [loaded.save(), loaded.save()] }));`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  if (child.status !== 0) throw new Error(child.stderr);
  const result = JSON.parse(child.stdout) as Load & { file: string; sep: string };
  expect([result.file, result.sep]).toEqual([file, path.sep]);
  return result;
}

const cacheFiles = (dir: string) => readdirSync(dir).filter((name) => name.endsWith('.v8')).sort();

describe('loadBundle', () => {
  it('runs the bundle with its exports, require and file name, with or without a cache', () => {
    const dir = tempDir();
    const file = writeBundle(dir, 42);
    expect(load(file, undefined)).toEqual({ cache: 'off', answer: 42, saved: [false, false], file, sep: path.sep });
  });

  it('writes a cache once, from the run that found none, and the next run takes it', () => {
    const dir = tempDir();
    const cache = path.join(dir, 'cache');
    mkdirSync(cache, { mode: 0o700 });
    const key: CacheKey = { dir: cache, name: 'start', build: 'aaaa', flags: 'daemon' };
    const file = writeBundle(dir, 7);
    expect(load(file, key)).toMatchObject({ cache: 'missing', answer: 7, saved: [true, false] });
    const [written] = cacheFiles(cache);
    expect(written).toMatch(/^start-aaaa-daemon-[0-9a-f]{8}-[0-9a-f]{8}\.v8$/);
    expect(statSync(path.join(cache, written ?? '')).mode & 0o777).toBe(0o600);
    expect(load(file, key)).toMatchObject({ cache: 'used', answer: 7, saved: [false, false] });
    expect(cacheFiles(cache)).toEqual([written]);
  });

  it('compiles anew over a cache V8 refuses, and replaces it', () => {
    const dir = tempDir();
    const key: CacheKey = { dir, name: 'cli-tools', build: 'bbbb', flags: 'liftoff' };
    const file = writeBundle(dir, 3);
    load(file, key);
    const [name = ''] = cacheFiles(dir);
    writeFileSync(path.join(dir, name), 'not a code cache');
    expect(load(file, key)).toMatchObject({ cache: 'rejected', answer: 3, saved: [true, false] });
    expect(load(file, key)).toMatchObject({ cache: 'used', answer: 3 });
  });

  it('removes this install\'s caches of earlier builds of the same entry, half-written ones whose writer is gone, and another install\'s long unwritten, and only those', () => {
    const dir = tempDir();
    const file = writeBundle(dir, 1);
    load(file, { dir, name: 'start', build: 'new1', flags: 'daemon' });
    const [first = ''] = cacheFiles(dir);
    const [, proc, install] = /^start-new1-daemon-([0-9a-f]{8})-([0-9a-f]{8})\.v8$/.exec(first) ?? [];
    expect(install).toBeDefined();
    // Half-written caches: one whose writer is gone (a run killed while it wrote), one whose writer runs (this one).
    const gone = spawnSync(process.execPath, ['-p', 'process.pid'], { encoding: 'utf8' }).stdout.trim();
    const planted = {
      ourOldBuild: `start-old1-daemon-${proc}-${install}.v8`,
      ourOldFlags: `start-old2-defaults-${proc}-${install}.v8`,
      ourOtherEntry: `cli-tools-old1-liftoff-${proc}-${install}.v8`,
      otherInstall: `start-old1-daemon-${proc}-ffffffff.v8`,
      otherInstallLongUnwritten: `start-old3-daemon-${proc}-eeeeeeee.v8`,
      partialGone: `cli-ask-old1-liftoff-${proc}-${install}.v8.${gone}.partial`,
      partialRunning: `cli-ask-old1-liftoff-${proc}-${install}.v8.${process.pid}.partial`,
      notes: 'notes.txt',
    };
    for (const name of Object.values(planted)) writeFileSync(path.join(dir, name), 'x');
    const longAgo = new Date(Date.now() - 100 * 86_400_000);
    utimesSync(path.join(dir, planted.otherInstallLongUnwritten), longAgo, longAgo);
    load(file, { dir, name: 'start', build: 'new2', flags: 'daemon' });
    // (The process key differs from the first load's: this test's Node is given the script as an argument.)
    const left = readdirSync(dir).filter((name) => !/^start-new2-daemon-[0-9a-f]{8}-/.test(name) || !name.endsWith(`-${install}.v8`)).sort();
    expect(left).toEqual(['bundle.cjs', planted.partialRunning, planted.ourOtherEntry, planted.notes, planted.otherInstall].sort());
    expect(readdirSync(dir).filter((name) => name.startsWith('start-new2-'))).toHaveLength(1);
  });
});

describe('codeCacheDir', () => {
  it('is the user\'s cache folder, made private, unless FAMILIAR_CODE_CACHE names another or says off', () => {
    const home = tempDir();
    expect(codeCacheDir({ HOME: home })).toBe(path.join(home, '.cache', 'familiar', 'code'));
    expect(statSync(path.join(home, '.cache', 'familiar', 'code')).mode & 0o777).toBe(0o700);
    expect(codeCacheDir({ HOME: home, XDG_CACHE_HOME: path.join(home, 'xdg') })).toBe(path.join(home, 'xdg', 'familiar', 'code'));
    expect(codeCacheDir({ HOME: home, FAMILIAR_CODE_CACHE: path.join(home, 'mine') })).toBe(path.join(home, 'mine'));
    expect(codeCacheDir({ HOME: home, FAMILIAR_CODE_CACHE: 'off' })).toBeUndefined();
    expect(codeCacheDir({})).toBeUndefined();
  });

  it('is none when the folder cannot be made', () => {
    const home = tempDir();
    writeFileSync(path.join(home, 'file'), '');
    expect(codeCacheDir({ FAMILIAR_CODE_CACHE: path.join(home, 'file', 'cache') })).toBeUndefined();
    expect(existsSync(path.join(home, 'file', 'cache'))).toBe(false);
  });
});
