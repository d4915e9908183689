import { z } from 'zod/v3';

/**
 * Which parts of the config are written (a dotted path: `tools.email`): a load builds the schema of the optional sections
 * and the lists' items only where the config has them, since an absent one passes as undefined (or its default, an empty
 * list) without them; a start built ~1,500 zod instances of which a config without channels or tools used half. `ALL`
 * builds everything: the reference, the did-you-mean of an unknown key, `familiar config`.
 */
export type Has = (path: string) => boolean;
export const ALL: Has = () => true;

/** `make()` where the config has `path`, else a schema only undefined passes, typed as `make`'s for the Config type. */
export const where = <T extends z.ZodTypeAny>(has: Has, path: string, make: () => T): T => (has(path) ? make() : (z.undefined() as unknown as T));

/** Has for a parsed, not yet validated config: a key whose value is not undefined. */
export function written(raw: unknown): Has {
  return (path) => {
    let value: unknown = raw;
    for (const key of path.split('.')) {
      if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return false;
      value = (value as Record<string, unknown>)[key];
    }
    return value !== undefined;
  };
}
