// Bundles the command line for a fast start: `tsc` writes dist/ (one file per module, which tests and benchmarks
// import), then this folds the ~100 modules the daemon loads at start, with yaml and zod, into a few files in
// dist/bundle/ and makes dist/main.js (the `familiar` bin) load them. Node pays per module file at start, so
// this takes tens of milliseconds off `familiar start` (docs/BENCHMARKS.md).
// - Code reached through `await import()` stays in separate chunks, loaded on use as before.
// - Other packages stay external (native better-sqlite3, pino's worker transports, the lazily loaded clients).
// - Chunks sit two folders below the package root, like dist/<dir>/<file>.js, so the paths our modules resolve
//   from import.meta.url (config.example.yaml, package.json) are the same bundled or not.
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = path.join(root, 'dist');
const BUNDLED = new Set(['yaml', 'zod', 'commander', 'openai']);
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const external = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.optionalDependencies ?? {})].filter((name) => !BUNDLED.has(name));

const options = {
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external,
  // CommonJS code folded in (yaml) calls require() for Node's built-ins; ES modules have none of their own.
  banner: { js: "import { createRequire as __familiarCreateRequire } from 'node:module'; const require = __familiarCreateRequire(import.meta.url);" },
  logLevel: 'warning',
};
// Two bundles. dist/bundle/: the command line, each command an entry loaded on use. dist/bundle-start/: `familiar
// start` alone (src/main-start.ts). In one bundle the code the commands share is cut into a chunk per set of entries
// using it, and a start read 72 files; its own bundle has only the daemon's entries (the parts loaded when configured),
// and a start reads 31 (docs/BENCHMARKS.md). What start does not handle (`start --help`) goes to the command line's.
for (const folder of ['bundle', 'bundle-start']) rmSync(path.join(dist, folder), { recursive: true, force: true });
await build({ ...options, entryPoints: { main: path.join(dist, 'main-start.js') }, outdir: path.join(dist, 'bundle-start') });
renameSync(path.join(dist, 'main.js'), path.join(dist, 'cli-main.js'));
await build({ ...options, entryPoints: { main: path.join(dist, 'cli-main.js') }, outdir: path.join(dist, 'bundle') });
rmSync(path.join(dist, 'cli-main.js'));
// The CommonJS packages the daemon requires on first use (src/lib/folded.ts), each folded into one file: pino's ~20
// files loaded one by one cost a start twice as much. pino's worker transports (thread-stream) are not used: streams
// are passed to it directly.
rmSync(path.join(dist, 'vendor'), { recursive: true, force: true });
for (const name of ['pino', 'rotating-file-stream']) {
  await build({ entryPoints: [createRequire(path.join(root, 'package.json')).resolve(name)], bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile: path.join(dist, 'vendor', `${name}.cjs`), logLevel: 'warning' });
}
// V8 keeps each module's source text for its life, as one byte a character only when every character is Latin-1: one
// "—" in a comment doubles the whole chunk's (the daemon's chunk and openai's, 1 MB of the start's 1.3 MB, held 2 MB).
// esbuild escapes strings and identifiers (its charset is ASCII) but leaves comments and regular expression literals as
// written, so what is left is written as \u escapes here: the same characters in a regular expression (a surrogate pair
// for one outside the BMP, which means the same with or without the u flag), mere text in a comment.
for (const folder of ['bundle', 'bundle-start', 'vendor']) {
  for (const name of readdirSync(path.join(dist, folder))) {
    const file = path.join(dist, folder, name);
    const text = readFileSync(file, 'utf8');
    if (/[^\x00-\x7f]/.test(text)) writeFileSync(file, text.replace(/[^\x00-\x7f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`));
  }
}
// Node 22.1+ keeps the compiled code of the modules it loads between runs (in NODE_COMPILE_CACHE, else the temporary
// folder): a start compiles nothing it compiled the last time. It applies to what loads after it is on, hence the
// dynamic import. Node 20 has no such cache (the call is skipped).
const MAIN = `#!/usr/bin/env node
// The command line, bundled by scripts/bundle.mjs from src/main.ts.
import module from 'node:module';
module.enableCompileCache?.();
await import(process.argv.includes('start') ? './bundle-start/main.mjs' : './bundle/main.mjs');
`;
writeFileSync(path.join(dist, 'main.js'), MAIN, { mode: 0o755 });
