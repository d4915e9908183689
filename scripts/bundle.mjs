// Bundles the command line for a fast start: `tsc` writes dist/ (one file per module, which tests and benchmarks
// import), then this folds the ~100 modules the daemon loads at start, with yaml and zod, into a few files in
// dist/bundle/ and makes dist/main.js (the `familiar` bin) load them. Node pays per module file at start, so
// this takes tens of milliseconds off `familiar start` (docs/BENCHMARKS.md).
// - Code reached through `await import()` stays in separate chunks, loaded on use as before.
// - Other packages stay external (native better-sqlite3, pino's worker transports, the lazily loaded clients).
// - Chunks sit two folders below the package root, like dist/<dir>/<file>.js, so the paths our modules resolve
//   from import.meta.url (config.example.yaml, package.json) are the same bundled or not.
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = path.join(root, 'dist');
const BUNDLED = new Set(['yaml', 'zod', 'commander', 'openai']);
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const external = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.optionalDependencies ?? {})].filter((name) => !BUNDLED.has(name));

rmSync(path.join(dist, 'bundle'), { recursive: true, force: true });
renameSync(path.join(dist, 'main.js'), path.join(dist, 'cli-main.js'));
await build({
  entryPoints: { main: path.join(dist, 'cli-main.js') },
  outdir: path.join(dist, 'bundle'),
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
});
rmSync(path.join(dist, 'cli-main.js'));
// Node 22.1+ keeps the compiled code of the modules it loads between runs (in NODE_COMPILE_CACHE, else the temporary
// folder): a start compiles nothing it compiled the last time. It applies to what loads after it is on, hence the
// dynamic import. Node 20 has no such cache (the call is skipped).
const MAIN = `#!/usr/bin/env node
// The command line, bundled by scripts/bundle.mjs from src/main.ts.
import module from 'node:module';
module.enableCompileCache?.();
await import('./bundle/main.mjs');
`;
writeFileSync(path.join(dist, 'main.js'), MAIN, { mode: 0o755 });
