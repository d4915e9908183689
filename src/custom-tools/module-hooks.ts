/**
 * How a tool module anywhere on disk is imported: Node's module customization hooks (`module.register`), which run
 * on Node's loader thread, for the modules the daemon imports with the `familiar-tool` query and everything they
 * import from their own folders:
 * - `import … from 'familiar'` is this daemon's own SDK (src/sdk.ts), wherever the module lives and whatever
 *   `node_modules/familiar` it may have beside it — the types then match the daemon that runs it;
 * - `.ts` / `.mts` files are compiled by esbuild's transform (types are stripped, not checked: the editor checks them);
 * - the query is passed on to their relative imports, so a reload (a new generation in the query) imports a changed
 *   helper file anew too. Files in node_modules keep one copy.
 * Modules imported otherwise (the daemon's own) are not touched.
 */
import { existsSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const TOOL_QUERY = 'familiar-tool';

// The loader thread's code, given to Node as a data: URL — a file would sit at a different place in a checkout,
// in dist/ and in the bundle. It can import only node: built-ins and absolute URLs.
const HOOKS_SOURCE = `
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
const QUERY = ${JSON.stringify(TOOL_QUERY)};
let sdk;
let esbuildUrl;
let esbuild;
export async function initialize(data) {
  sdk = data.sdk;
  esbuildUrl = data.esbuild;
}
function tagOf(url) {
  if (typeof url !== 'string' || !url.startsWith('file:')) return null;
  try { return new URL(url).searchParams.get(QUERY); } catch { return null; }
}
export async function resolve(specifier, context, nextResolve) {
  const tag = tagOf(context.parentURL);
  if (tag === null) return nextResolve(specifier, context);
  if (specifier === 'familiar') return { url: sdk, format: 'module', shortCircuit: true };
  let resolved;
  try {
    resolved = await nextResolve(specifier, context);
  } catch (error) {
    // TypeScript's convention: './helper.js' names ./helper.ts.
    const relative = specifier.startsWith('./') || specifier.startsWith('../');
    if (!relative || !/\\.m?js$/.test(specifier) || error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    try {
      resolved = await nextResolve(specifier.replace(/\\.(m?)js$/, '.$1ts'), context);
    } catch {
      throw error;
    }
  }
  if (!resolved.url.startsWith('file:') || resolved.url.includes('/node_modules/')) return resolved;
  const url = new URL(resolved.url);
  url.searchParams.set(QUERY, tag);
  return { ...resolved, url: url.href };
}
export async function load(url, context, nextLoad) {
  if (tagOf(url) === null) return nextLoad(url, context);
  const file = fileURLToPath(url.split('?')[0]);
  if (/\\.m?ts$/.test(file)) {
    if (!esbuildUrl) throw new Error('a .ts tool module needs esbuild (npm install esbuild beside Familiar), or write it as .mjs');
    esbuild ??= await import(esbuildUrl);
    const transform = esbuild.transform ?? esbuild.default.transform;
    const source = await readFile(file, 'utf8');
    const output = await transform(source, { loader: 'ts', format: 'esm', target: 'node20', sourcefile: file, sourcemap: 'inline' });
    return { format: 'module', source: output.code, shortCircuit: true };
  }
  // A tools folder has no package.json saying "type": "module": its .js files are ES modules all the same.
  if (file.endsWith('.js')) return nextLoad(url, { ...context, format: 'module' });
  return nextLoad(url, context);
}
`;

/** Node's hooks cannot be removed, and every daemon in a process needs the same ones: registered once. */
let registered = false;

/** Registers the hooks (once per process). Contract: never throws; without esbuild only `.ts` modules fail. */
export function registerToolModuleHooks(): void {
  if (registered) return;
  registered = true;
  register(`data:text/javascript,${encodeURIComponent(HOOKS_SOURCE)}`, { data: { sdk: sdkUrl(), esbuild: esbuildUrl() } });
}

/** The URL that imports `file` as generation `generation` of the tools (a new generation: a fresh import). */
export function toolModuleUrl(file: string, generation: number): string {
  const url = pathToFileURL(file);
  url.searchParams.set(TOOL_QUERY, String(generation));
  return url.href;
}

/**
 * The SDK beside this code: dist/sdk.js when built (this file is in dist/custom-tools/ or dist/bundle/), src/sdk.ts
 * when run from the sources (the tests). The query makes the hooks compile the .ts one.
 */
function sdkUrl(): string {
  const built = new URL('../sdk.js', import.meta.url);
  const url = existsSync(fileURLToPath(built)) ? built : new URL('../sdk.ts', import.meta.url);
  url.searchParams.set(TOOL_QUERY, 'sdk');
  return url.href;
}

function esbuildUrl(): string | undefined {
  try {
    return pathToFileURL(createRequire(import.meta.url).resolve('esbuild')).href;
  } catch {
    return undefined;
  }
}
