import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A package's CommonJS build, loaded where a rare path first calls it rather than imported at the top of a module: an
 * import loads it with every start and command that reaches the module (2–8 ms each through Node's ES module loader),
 * though only that path uses it. Node keeps it after the first call. `test/ops/start-packages.test.ts` checks a start.
 */
export function requireOnUse<T>(name: string): T {
  return require(name) as T;
}
