import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';

// zod v3 binds ~23 methods to every schema instance, so a schema kept as a module constant is held for the daemon's
// life (the config's held ~840 KiB). The modules the daemon evaluates at start build theirs in functions instead.
const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const CONFIG_PARTS = readdirSync(`${SRC}config`).filter((name) => name.endsWith('schema.ts')).map((name) => `config/${name}`);
const FILES = [...CONFIG_PARTS, 'config/duration.ts', 'skills/format.ts', 'skills/hub.ts', 'heartbeat/answer.ts', 'memory/consolidation/consolidator.ts'];
const MODULE_SCHEMA = /^(?:export )?(?:const|let|var) (\w+)(?::[^=\n]*)? = z\b/gm;

const heldIn = (file: string, text: string): string[] => [...text.matchAll(MODULE_SCHEMA)].map((match) => `${file}: ${match[1] ?? ''}`);

describe('the zod schemas the daemon loads at start', () => {
  it('are built by functions, none kept in a module constant', () => {
    expect(CONFIG_PARTS.length).toBeGreaterThan(5);
    expect(FILES.flatMap((file) => heldIn(file, readFileSync(`${SRC}${file}`, 'utf8')))).toEqual([]);
  });

  it('still parses as an object did: configSchema.parse and safeParse build one for the call', () => {
    expect(configSchema.parse({ timezone: 'UTC' }).timezone).toBe('UTC');
    expect(configSchema.safeParse({ timezone: 'Mars/Base' }).success).toBe(false);
    expect(configSchema().parse({}).data_dir).toBe('./data');
  });

  it('would be found if one were a module constant', () => {
    const text = "const secret = () => z.string();\nexport const jobSchema = z\n  .strictObject({});\nconst id: z.ZodString = z.string();";
    expect(heldIn('planted.ts', text)).toEqual(['planted.ts: jobSchema', 'planted.ts: id']);
  });
});
