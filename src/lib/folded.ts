import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** The CommonJS packages the build folds into one file each (scripts/bundle.mjs writes them to dist/vendor/). */
export type FoldedPackage = 'pino' | 'rotating-file-stream';

/**
 * A package the daemon requires on first use, from the one file the build folded it into when there is one: pino's
 * ~20 files (pino, sonic-boom, the serializers) take twice as long to find and load one by one. This file sits two
 * folders below the package root whether bundled or not, so the path holds for both; run from src/ (the tests) there
 * is no folded file, and the package is required as installed.
 */
export function requireFolded(name: FoldedPackage): unknown {
  try {
    return require(fileURLToPath(new URL(`../vendor/${name}.cjs`, import.meta.url)));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
    return require(name);
  }
}

/**
 * A package's CommonJS build, loaded where a rare path first calls it rather than imported at the top of a module: an
 * import loads it with every start and command that reaches the module (2–8 ms each through Node's ES module loader),
 * though only that path uses it. Node keeps it after the first call. `test/ops/start-packages.test.ts` checks a start.
 */
export function requireOnUse<T>(name: string): T {
  return require(name) as T;
}
