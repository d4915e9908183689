import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { parseConfigText, validateConfig } from '../../src/config/load.js';
import { configSchema, configSchemaFor } from '../../src/config/schema.js';

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

describe('the schema of what a config has (configSchemaFor, what a load validates with)', () => {
  // Each optional section and list item whose schema is built only where the config has it, each written empty (as a
  // mapping, a list of one, a record of one), and the example config: the result is the whole schema's, success or not.
  const SECTIONS: Record<string, unknown> = {
    'channels.telegram': {}, 'channels.discord': {}, 'channels.signal': {}, 'channels.slack': {}, 'channels.matrix': {},
    'tools.web_search': {}, 'tools.email': {}, 'tools.calendar': {}, 'tools.sandbox': {}, 'tools.images': {},
    'tools.scripts': { a: {} }, 'tools.mcp.servers': { a: {} }, 'voice.stt': {}, 'voice.tts': {}, 'scheduler.jobs': [{}],
    agents: { a: {} }, routes: [{}], heartbeat: {}, people: {},
  };
  const withPath = (path: string, value: unknown): Record<string, unknown> => {
    const root: Record<string, unknown> = { timezone: 'UTC' };
    let at = root;
    const keys = path.split('.');
    for (const key of keys.slice(0, -1)) at = (at[key] = {}) as Record<string, unknown>;
    at[keys.at(-1)!] = value;
    return root;
  };
  const same = (raw: unknown) => {
    const whole = configSchema().safeParse(raw);
    const part = configSchemaFor(raw).safeParse(raw);
    expect(part.success).toBe(whole.success);
    if (whole.success && part.success) expect(part.data).toEqual(whole.data);
    else expect(part.error?.issues).toEqual(whole.error?.issues);
    return whole.success;
  };

  it('validates every config as the whole schema does', () => {
    expect(same({})).toBe(true);
    const example = parseConfigText(readFileSync(new URL('../../config.example.yaml', import.meta.url), 'utf8'), 'config.example.yaml', { TELEGRAM_BOT_TOKEN: '1:x' });
    expect(same(example)).toBe(true);
    const outcomes = Object.entries(SECTIONS).map(([path, value]) => [path, same(withPath(path, value))]);
    // Both kinds are compared: sections valid empty (defaults filled in) and sections with a required key.
    expect(outcomes.some(([, ok]) => ok)).toBe(true);
    expect(outcomes.some(([, ok]) => !ok)).toBe(true);
    // A value inside a section the other keys do not have, wrong: the same issue.
    expect(same(withPath('tools.sandbox', { pool_size: 'many' }))).toBe(false);
  });

  it('still says where an unknown key belongs when that section is not in the config', () => {
    let error: unknown;
    try {
      validateConfig({ timezone: 'UTC', channels: { allowed_users: [1] }, api_root: 'https://example.org' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(/api_root: unknown key here; "api_root" belongs under channels\.telegram/);
  });
});
