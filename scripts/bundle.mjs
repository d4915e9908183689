// Bundles the command line for a fast start: `tsc` writes dist/ (one file per module, which tests and benchmarks
// import), then this folds what the executable runs, with yaml, zod, commander and openai, into two files, and makes
// dist/main.js (the `familiar` bin, src/boot.ts) run them through V8's code cache (src/lib/code-cache.ts):
// - dist/bundle-start/main.cjs: `familiar start` (src/main-start.ts), the daemon and the parts it loads when configured;
// - dist/bundle/main.cjs: the command line (src/main.ts), each command loaded on use.
// Each is one CommonJS function, `(function (exports, require, module, __filename, __dirname, __familiarImport) { … })`:
// a vm.Script, the only kind of code Node 20 keeps a code cache of that covers the functions a run calls
// (docs/BENCHMARKS.md).
// - Code reached through `await import('./x.js')` is in the same file, wrapped to run on first use, as before.
// - `import()` of anything else (a package loaded on use, a custom tool's module) is a call of __familiarImport, an
//   `import()` made by the executable: in a vm.Script, `import()` needs Node's experimental loader option, and on Node 20
//   it fails in code taken from a code cache ("A dynamic import callback was not specified").
// - Other packages stay external (native better-sqlite3, pino's worker transports, the lazily loaded clients).
// - The bundles sit two folders below the package root, like dist/<dir>/<file>.js, so the paths our modules resolve
//   from import.meta.url (config.example.yaml, package.json) are the same bundled or not.
import { createHash } from 'node:crypto';
import { chmodSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { build } from 'esbuild';
import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = path.join(root, 'dist');
// The CommonJS packages the daemon requires on first use (src/lib/folded-packages.ts): in the bundles like the rest,
// and each folded into one file for dist/ (pino's ~20 files loaded one by one cost a start twice as much).
const FOLDED = ['pino', 'rotating-file-stream'];
const BUNDLED = new Set(['yaml', 'zod', 'commander', 'openai', ...FOLDED]);
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const external = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.optionalDependencies ?? {})].filter((name) => !BUNDLED.has(name));

/**
 * Writes `import(…)` of anything but a relative path as `__familiarImport(…)` in our modules (tsc's output), found by
 * TypeScript's parser: not in strings or comments, whatever the arguments.
 */
const outsideImports = {
  name: 'outside-imports',
  setup(builder) {
    builder.onLoad({ filter: /\.js$/ }, (args) => {
      if (!args.path.startsWith(dist + path.sep)) return undefined;
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import(')) return undefined;
      const source = ts.createSourceFile(args.path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
      const starts = [];
      const visit = (node) => {
        if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
          const [first] = node.arguments;
          if (!(first && ts.isStringLiteralLike(first) && /^\.\.?\//.test(first.text))) {
            if (node.arguments.length > 1) throw new Error(`${path.relative(root, args.path)}: import() with options is not passed on by __familiarImport (src/lib/code-cache.ts)`);
            starts.push(node.expression.getStart(source));
          }
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
      let contents = text;
      for (const start of starts.reverse()) contents = `${contents.slice(0, start)}__familiarImport${contents.slice(start + 'import'.length)}`;
      return { contents, loader: 'js' };
    });
  },
};

/** src/lib/folded-packages.ts in the bundles: the folded packages are required from the bundle itself. */
const foldedInBundle = {
  name: 'folded-in-bundle',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]lib[\\/]folded-packages\.js$/ }, (args) => {
      if (args.path !== path.join(dist, 'lib', 'folded-packages.js')) return undefined;
      const cases = FOLDED.map((name) => `case ${JSON.stringify(name)}: return require(${JSON.stringify(name)});`).join(' ');
      return { loader: 'js', contents: `export function requireFolded(name) { switch (name) { ${cases} default: throw new Error(\`\${name} is not folded\`); } }\n` };
    });
  },
};

/**
 * What the folded packages load at their first require and use rarely or never, left out of a start:
 * - pino's worker transports (thread-stream): streams are passed to pino directly, so `transport` is never called;
 *   here it throws;
 * - Node modules needed only on a rare path are required at the first call of the functions these packages take from
 *   them: sonic-boom's assertion, rotating-file-stream's compression and its command runner (1.5–2.5 ms each a start
 *   otherwise). A package that took another function from them would find it missing: test/ops/bundle.test.ts checks
 *   that these are all they use.
 */
const ON_FIRST_USE = { assert: [], child_process: ['exec'], zlib: ['createGzip'] };
const foldedTrimmed = {
  name: 'folded-trimmed',
  setup(builder) {
    const inFolded = (importer) => /[\\/]node_modules[\\/](pino|sonic-boom|rotating-file-stream)[\\/]/.test(importer);
    builder.onResolve({ filter: /^thread-stream$/ }, (args) => (inFolded(args.importer) ? { path: 'thread-stream', namespace: 'not-built' } : undefined));
    builder.onLoad({ filter: /.*/, namespace: 'not-built' }, () => ({
      loader: 'js', contents: "module.exports = class ThreadStream { constructor() { throw new Error('pino transports are not part of Familiar (scripts/bundle.mjs)'); } };",
    }));
    const builtins = new RegExp(`^(node:)?(${Object.keys(ON_FIRST_USE).join('|')})$`);
    builder.onResolve({ filter: builtins }, (args) => (inFolded(args.importer) ? { path: args.path.replace(/^node:/, ''), namespace: 'on-first-use' } : undefined));
    builder.onLoad({ filter: /.*/, namespace: 'on-first-use' }, (args) => ({
      loader: 'js',
      contents: [
        `const load = () => require(${JSON.stringify(`node:${args.path}`)});`,
        'const on = (name) => function (...args) { return load()[name].apply(this, args); };',
        `module.exports = Object.assign(function (...args) { return load().apply(this, args); }, { ${ON_FIRST_USE[args.path].map((name) => `${name}: on(${JSON.stringify(name)})`).join(', ')} });`,
      ].join('\n'),
    }));
  },
};

/**
 * Node's crypto (3 ms to load, 20 internal modules) is imported by 40 of our modules, each for a hash, an id or a
 * comparison that a start seldom makes: in the bundles, those imports are functions that require it at their first
 * call. A module that imported anything else from it would fail the build (no such export), and would be added here.
 */
const CRYPTO_FUNCTIONS = ['createHash', 'createHmac', 'randomBytes', 'randomInt', 'randomUUID', 'timingSafeEqual'];
const cryptoOnFirstUse = {
  name: 'crypto-on-first-use',
  setup(builder) {
    builder.onResolve({ filter: /^(node:)?crypto$/ }, (args) => (args.importer.startsWith(dist + path.sep) ? { path: 'crypto', namespace: 'crypto-on-first-use' } : undefined));
    builder.onLoad({ filter: /.*/, namespace: 'crypto-on-first-use' }, () => ({
      loader: 'js',
      contents: CRYPTO_FUNCTIONS.map((name) => `export function ${name}(...args) { return require('node:crypto').${name}(...args); }`).join('\n'),
    }));
  },
};

const options = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  external,
  // A CommonJS file has no import.meta: its URL is made from __filename, which src/lib/code-cache.ts passes.
  define: { 'import.meta.url': '__familiarUrl' },
  banner: { js: "(function (exports, require, module, __filename, __dirname, __familiarImport) {'use strict'; const __familiarUrl = require('node:url').pathToFileURL(__filename).href;" },
  footer: { js: '})' },
  plugins: [outsideImports, foldedInBundle, foldedTrimmed, cryptoOnFirstUse],
  metafile: true,
  logLevel: 'warning',
};
/** Builds one bundle; an `import()` left to the bundle (in a bundled package) would fail as above: refused. */
async function bundle(entry, outfile) {
  const { metafile } = await build({ ...options, entryPoints: [entry], outfile });
  const left = Object.values(metafile.outputs).flatMap((output) => output.imports).filter((item) => item.kind === 'dynamic-import' && item.external);
  if (left.length > 0) throw new Error(`${path.relative(root, outfile)}: import() of ${left.map((item) => item.path).join(', ')} is left in the bundle; load it from our own code`);
}
for (const folder of ['bundle', 'bundle-start']) rmSync(path.join(dist, folder), { recursive: true, force: true });
await bundle(path.join(dist, 'main-start.js'), path.join(dist, 'bundle-start', 'main.cjs'));
renameSync(path.join(dist, 'main.js'), path.join(dist, 'cli-main.js'));
await bundle(path.join(dist, 'cli-main.js'), path.join(dist, 'bundle', 'main.cjs'));
rmSync(path.join(dist, 'cli-main.js'));
// The folded packages for dist/ (the SDK, benchmarks), each one file.
rmSync(path.join(dist, 'vendor'), { recursive: true, force: true });
for (const name of FOLDED) {
  await build({ entryPoints: [createRequire(path.join(root, 'package.json')).resolve(name)], bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile: path.join(dist, 'vendor', `${name}.cjs`), plugins: [foldedTrimmed], logLevel: 'warning' });
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
// The executable: src/boot.ts and the few modules it imports, folded into one file, given each bundle's content hash (the
// name of its code cache: V8 checks a cache against the source's length only).
const hash = (file) => createHash('sha256').update(readFileSync(path.join(dist, file))).digest('hex').slice(0, 16);
const bundles = { start: 'bundle-start/main.cjs', commandLine: 'bundle/main.cjs' };
const entry = Object.entries(bundles).map(([key, file]) => `${key}: { file: fileURLToPath(new URL(${JSON.stringify(`./${file}`)}, import.meta.url)), build: ${JSON.stringify(hash(file))} }`);
await build({
  stdin: { contents: `import { fileURLToPath } from 'node:url';\nimport { boot } from './boot.js';\nawait boot({ ${entry.join(', ')} });\n`, resolveDir: dist, sourcefile: 'familiar.js' },
  bundle: true, format: 'esm', platform: 'node', target: 'node20', outfile: path.join(dist, 'main.js'), logLevel: 'warning',
  banner: { js: '#!/usr/bin/env node\n// The `familiar` executable, built by scripts/bundle.mjs from src/boot.ts.' },
});
chmodSync(path.join(dist, 'main.js'), 0o755);
