// Shared helpers for the benchmark scripts (plain Node, importing the built daemon from dist/).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const MAIN = path.join(ROOT, 'dist', 'main.js');
/**
 * `--smoke`: the tiny configuration in which the test suite runs every script once (test/bench/bench-smoke.test.ts),
 * so a broken script fails CI. It runs and reports; its figures mean nothing.
 */
export const SMOKE = process.argv.includes('--smoke');
/** A count, or its tiny value under `--smoke`. */
export const sized = (full, smoke) => (SMOKE ? smoke : full);

export function tempDir(prefix = 'familiar-bench-') {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export function mib(bytes) {
  return bytes / 1024 / 1024;
}

export function rssOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb * 1024;
}

/** Writes a config.yaml (YAML is a superset of JSON) in a fresh folder. */
export function writeConfig(dir, config) {
  mkdirSync(path.join(dir, 'memory'), { recursive: true });
  const file = path.join(dir, 'config.yaml');
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

/** Starts `familiar start`, resolves when the ready line appears, with the elapsed ms and the child. */
export function startDaemon(args, { cwd, env = {} }) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [MAIN, 'start', ...args], { cwd, env: { PATH: process.env.PATH, HOME: cwd, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk.toString();
      if (stderr.includes('familiar is ready')) resolve({ child, readyMs: performance.now() - started, stderr: () => stderr });
    });
    child.on('close', (code) => reject(new Error(`daemon exited (${code}): ${stderr}`)));
  });
}

export function stopDaemon(child) {
  return new Promise((resolve) => {
    child.removeAllListeners('close');
    child.on('close', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

export function table(rows) {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => String(row[column]).length)));
  return rows.map((row) => row.map((cell, column) => String(cell).padEnd(widths[column])).join('  ')).join('\n');
}

/**
 * Imports a test fake (TypeScript, under test/fakes/): it and the local modules it imports (test/helpers/tdlib.ts for
 * the Telegram fake) are transpiled into node_modules/.cache/familiar-bench/, in the same folders as under test/, so
 * their relative imports hold. Packages they import resolve from the project's node_modules.
 */
export async function importFake(name) {
  const ts = (await import('typescript')).default;
  const cache = path.join(ROOT, 'node_modules', '.cache', 'familiar-bench');
  const done = new Set();
  const transpile = (relative) => {
    if (done.has(relative)) return;
    done.add(relative);
    const source = readFileSync(path.join(ROOT, 'test', `${relative}.ts`), 'utf8');
    const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
    // `./x.js` and `../helpers/x.js` are TypeScript files next to it: transpiled too, imported as .mjs.
    const rewritten = outputText.replace(/(from\s+|import\s*\(\s*)(['"])(\.{1,2}\/[^'"]+)\.js\2/g, (_match, lead, quote, specifier) => {
      transpile(path.posix.join(path.posix.dirname(relative), specifier));
      return `${lead}${quote}${specifier}.mjs${quote}`;
    });
    const file = path.join(cache, `${relative}.mjs`);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, rewritten);
  };
  transpile(`fakes/${name}`);
  return import(path.join(cache, 'fakes', `${name}.mjs`));
}

/**
 * The figures of a bench script: `report` keeps each one for `--json` and prints its line otherwise; `finish` prints
 * the JSON (what `npm run bench` reads) when `--json` was given.
 */
export function reporter(argv = process.argv) {
  const json = argv.includes('--json');
  const results = {};
  return {
    report(key, value, text) {
      results[key] = value;
      if (!json) console.log(text);
    },
    finish() {
      if (json) console.log(JSON.stringify(results));
    },
  };
}
