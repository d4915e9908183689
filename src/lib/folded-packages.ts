import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** The CommonJS packages the daemon requires on first use, folded by the build (scripts/bundle.mjs). */
export type FoldedPackage = 'pino' | 'rotating-file-stream';

/**
 * A package the daemon requires on first use (pino's ~20 files take twice as long to find and load one by one):
 * - in the executable's bundles, this module is replaced by one that runs the package's copy folded into the bundle,
 *   compiled with the rest through the code cache (scripts/bundle.mjs);
 * - from dist/ (the SDK, benchmarks), the one file the build folded it into, dist/vendor/<name>.cjs; this file sits two
 *   folders below the package root, so the path holds;
 * - from src/ (the tests), where there is no folded file, the package as installed.
 */
export function requireFolded(name: FoldedPackage): unknown {
  try {
    return require(fileURLToPath(new URL(`../vendor/${name}.cjs`, import.meta.url)));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
    return require(name);
  }
}
