import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { waitUntil } from '../helpers/daemon.js';
import { auditRows, makeHarness, writeTools, type Harness } from './helpers.js';

const echo = (name: string, reply = 'echo') => `
import { defineTool } from 'familiar';
export default defineTool({
  name: '${name}',
  description: 'Echoes.',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
  effects: [],
  async execute({ text }) { return '${reply}: ' + text; },
});
`;

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('tool modules', () => {
  it('loads a module from a folder outside the checkout, importing defineTool from "familiar"', async () => {
    harness = await makeHarness({ 'echo.mjs': echo('echo') });
    expect(harness.toolsDir.startsWith(process.cwd())).toBe(false);
    expect(harness.registry.get('echo')?.tool.description).toBe('Echoes.');
    const { result } = await harness.call('echo', { text: 'hi' });
    expect(result).toEqual({ success: true, output: 'echo: hi' });
  });

  it('validates the arguments against the module\'s schema before execute runs', async () => {
    harness = await makeHarness({ 'echo.mjs': echo('echo') });
    const { result } = await harness.call('echo', { text: 3 });
    expect(result.success).toBe(false);
    expect(result.output).toMatch(/Invalid arguments for echo: text must be string/);
  });

  it('loads TypeScript modules, and their relative imports written as .js', async () => {
    harness = await makeHarness({
      'meter.ts': `
import { defineTool, type CustomToolContext } from 'familiar';
import { format } from './lib/format.js';
interface Params { unit?: 'kWh' | 'Wh' }
export default defineTool<Params>({
  name: 'meter_ts',
  description: 'Reads a number.',
  parameters: { type: 'object', properties: { unit: { type: 'string', enum: ['kWh', 'Wh'] } } },
  async execute(params: Params, ctx: CustomToolContext) { return format(1234.5, params.unit ?? 'kWh') + ' ' + String(ctx.settings.where); },
});`,
      'lib/format.ts': 'export function format(value: number, unit: string): string { return `${value} ${unit}`; }\n',
    }, { tools: { settings: { meter_ts: { where: 'cellar' } } } });
    const { result } = await harness.call('meter_ts', { unit: 'Wh' });
    expect(result).toEqual({ success: true, output: '1234.5 Wh cellar' });
  });

  it('takes an array of definitions, and turns text, objects and failures into tool results', async () => {
    harness = await makeHarness({
      'many.js': `
import { defineTool, fail } from 'familiar';
const base = { description: 'x', parameters: { type: 'object', properties: {} } };
export default [
  defineTool({ ...base, name: 'as_json', execute: () => ({ kwh: 12, ok: true }) }),
  defineTool({ ...base, name: 'as_failure', execute: () => fail('the lamp is offline; try later') }),
  defineTool({ ...base, name: 'throws', execute: () => { throw new Error('socket hang up'); } }),
  defineTool({ ...base, name: 'returns_nothing', execute: () => undefined }),
];`,
    });
    expect((await harness.call('as_json')).result).toEqual({ success: true, output: '{"kwh":12,"ok":true}' });
    expect((await harness.call('as_failure')).result).toEqual({ success: false, output: 'the lamp is offline; try later' });
    expect((await harness.call('throws')).result.output).toBe('throws failed: socket hang up');
    expect((await harness.call('returns_nothing')).result).toMatchObject({ success: false, output: expect.stringMatching(/returned nothing/) });
  });

  it('gives a tool its own settings from tools.settings, a copy per call', async () => {
    harness = await makeHarness({
      'settings.mjs': `
import { defineTool } from 'familiar';
export default defineTool({ name: 'show_settings', description: 'x', parameters: { type: 'object' },
  execute(_params, ctx) { const seen = JSON.stringify(ctx.settings); ctx.settings.url = 'changed'; return seen; } });`,
    }, { tools: { settings: { show_settings: { url: 'http://meter.local', token: 'abc' } } } });
    expect((await harness.call('show_settings')).result.output).toBe('{"url":"http://meter.local","token":"abc"}');
    expect((await harness.call('show_settings')).result.output).toBe('{"url":"http://meter.local","token":"abc"}');
  });

  it('audits a custom tool\'s calls like a built-in\'s', async () => {
    harness = await makeHarness({ 'echo.mjs': echo('echo') });
    await harness.call('echo', { text: 'for the record' });
    expect(auditRows(harness.db)).toEqual([expect.objectContaining({ tool: 'echo', input: '{"text":"for the record"}', output: 'echo: for the record', success: 1 })]);
  });

  it('goes through the registry\'s approval, deadline and output cap like a built-in', async () => {
    harness = await makeHarness({
      'strict.mjs': `
import { defineTool } from 'familiar';
const base = { description: 'x', parameters: { type: 'object', properties: { to: { type: 'string' } } } };
export default [
  defineTool({ ...base, name: 'unlock_door', risk: (p) => (p.to === 'front' ? 'high' : 'low'), effects: [{ kind: 'egress', what: 'the door lock' }], execute: () => 'unlocked' }),
  defineTool({ ...base, name: 'hangs', timeoutMs: 300, execute: (_p, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve('stopped'))) }),
  defineTool({ ...base, name: 'chatty', readOnly: true, execute: () => 'x'.repeat(40_000) }),
];`,
    });
    const asked: string[] = [];
    const denied = await harness.call('unlock_door', { to: 'front' }, { approve: async (request) => (asked.push(request.tool), { approved: false, reason: 'not now' }) });
    expect(asked).toEqual(['unlock_door']);
    expect(denied.result.output).toMatch(/was not approved: not now/);
    expect((await harness.call('unlock_door', { to: 'shed' }, { approve: async () => ({ approved: false, reason: 'never asked' }) })).result.output).toBe('unlocked');
    expect(harness.registry.get('unlock_door')?.tool.effects).toEqual([{ kind: 'egress', what: 'the door lock' }]);
    expect([harness.registry.get('chatty')?.tool.readOnly, harness.registry.get('unlock_door')?.tool.readOnly]).toEqual([true, undefined]);
    expect((await harness.call('hangs')).result.output).toMatch(/^hangs did not finish within 0\.3 s and was stopped/);
    expect((await harness.call('chatty')).result.output).toMatch(/output truncated: 24000 more characters/);
  });

  it('skips tests, helpers, hidden files and declarations at the top level', async () => {
    harness = await makeHarness({
      'echo.mjs': echo('echo'),
      'echo.test.mjs': 'throw new Error("a test is not a tool");',
      '_shared.mjs': 'throw new Error("a helper is not a tool");',
      '.draft.mjs': 'throw new Error("hidden");',
      'types.d.ts': 'export type X = 1;',
      'notes.txt': 'not code',
    });
    const report = harness.custom.report();
    expect(report.files.map((file) => file.name)).toEqual(['echo.mjs']);
    expect(report.problems).toEqual([]);
  });
});

describe('bad modules', () => {
  it('reports each bad module with its file and why, and loads the others', async () => {
    harness = await makeHarness({
      'a_good.mjs': echo('good'),
      'broken_syntax.mjs': `import { defineTool } from 'familiar';\nexport default defineTool({\n  name: 'x' 'y',\n});\n`,
      'throws_at_load.mjs': `import { defineTool } from 'familiar';\nconst token = process.env.NOPE;\nif (!token) throw new Error('METER_TOKEN is not set');\nexport default defineTool({});\n`,
      'invalid_schema.mjs': `import { defineTool } from 'familiar';\nexport default defineTool({ name: 'bad_schema', description: 'x', parameters: { type: 'object', properties: { a: { type: 'strng' } } }, execute: () => 'x' });\n`,
      'not_an_object_schema.mjs': `import { defineTool } from 'familiar';\nexport default defineTool({ name: 'flat', description: 'x', parameters: { type: 'string' }, execute: () => 'x' });\n`,
      'no_default.mjs': `export const tool = 1;\n`,
      'bad_name.mjs': `import { defineTool } from 'familiar';\nexport default defineTool({ name: 'has spaces', description: 'x', parameters: { type: 'object' }, execute: () => 'x' });\n`,
      'bad_read_only.mjs': `import { defineTool } from 'familiar';\nexport default defineTool({ name: 'lookup', description: 'x', parameters: { type: 'object' }, readOnly: 'yes', execute: () => 'x' });\n`,
      'dup_builtin.mjs': echo('memory_read'),
      'dup_custom.mjs': echo('good'),
      'missing_import.mjs': `import { helper } from './nowhere.mjs';\nexport default helper;\n`,
    }, {}, { setup: (registry) => registry.register({ name: 'memory_read', description: 'built in', parameters: { type: 'object' }, execute: async () => ({ success: true, output: '' }) }) });
    const problems = Object.fromEntries(harness.custom.report().problems.map((problem) => [problem.name, problem.error]));
    expect(problems).toEqual({
      'broken_syntax.mjs': expect.stringMatching(/^syntax error at line 3: .*string/i),
      'throws_at_load.mjs': 'threw while loading (line 3): Error: METER_TOKEN is not set',
      'invalid_schema.mjs': 'the default export (bad_schema): parameters is not a valid JSON Schema: parameters.properties.a.type is "strng", not a JSON Schema type (string, number, integer, boolean, object, array, null)',
      'not_an_object_schema.mjs': expect.stringMatching(/parameters must describe an object/),
      'no_default.mjs': expect.stringMatching(/no default export/),
      'bad_name.mjs': expect.stringMatching(/name must be 1-64 letters/),
      'bad_read_only.mjs': 'the default export (lookup): readOnly must be true or false',
      'dup_builtin.mjs': 'duplicate name: "memory_read" is a built-in tool (or an MCP tool\'s); pick another name',
      'dup_custom.mjs': 'duplicate name: "good" is already defined by a_good.mjs; rename one of them',
      'missing_import.mjs': expect.stringMatching(/^an import is missing: Cannot find module '.*nowhere\.mjs' imported from .*missing_import\.mjs$/),
    });
    expect(JSON.stringify(problems)).not.toContain('familiar-tool=');
    // The good one runs; the built-in it clashed with is untouched.
    expect((await harness.call('good', { text: 'still here' })).result.output).toBe('echo: still here');
    expect(harness.registry.get('memory_read')?.tool.description).toBe('built in');
    for (const name of Object.keys(problems)) {
      expect(harness.logged(`custom tools: ${name}:`)).toHaveLength(1);
    }
    const doctor = await harness.custom.part.doctor?.();
    expect(doctor?.filter((line) => line.status === 'fail').map((line) => line.label)).toHaveLength(Object.keys(problems).length);
  });

  it('reports a .ts module that does not compile with its line', async () => {
    harness = await makeHarness({ 'bad.ts': 'import { defineTool } from "familiar";\nconst x: number = ;\nexport default x;\n' });
    expect(harness.custom.report().problems).toEqual([expect.objectContaining({ name: 'bad.ts', error: expect.stringMatching(/^does not compile: line 2:\d+: ERROR: Unexpected ";"/) })]);
  });
});

describe('reloading', () => {
  it('picks up an edit to a module and to a helper it imports, without a restart', async () => {
    harness = await makeHarness({ 'echo.mjs': `import { word } from './_word.mjs';\n${echo('echo').replace("'echo: '", 'word + ": "')}`, '_word.mjs': 'export const word = "v1";\n' });
    expect((await harness.call('echo', { text: 'a' })).result.output).toBe('v1: a');
    writeTools(harness.toolsDir, { '_word.mjs': 'export const word = "v2";\n' });
    await harness.custom.reload();
    expect((await harness.call('echo', { text: 'a' })).result.output).toBe('v2: a');
    writeTools(harness.toolsDir, { 'echo.mjs': echo('echo', 'edited') });
    await harness.custom.reload();
    expect((await harness.call('echo', { text: 'a' })).result.output).toBe('edited: a');
  });

  it('keeps the previous version of a module whose edit does not load, and says so', async () => {
    harness = await makeHarness({ 'echo.mjs': echo('echo') });
    writeTools(harness.toolsDir, { 'echo.mjs': 'export default defineTool({' });
    const report = await harness.custom.reload();
    expect(report.problems).toEqual([expect.objectContaining({ name: 'echo.mjs', kept: true })]);
    expect((await harness.call('echo', { text: 'a' })).result.output).toBe('echo: a');
    expect(harness.logged('its previous version keeps running')).toHaveLength(1);
  });

  it('removes the tools and hooks of a deleted module, and adds a new one', async () => {
    harness = await makeHarness({
      'echo.mjs': echo('echo'),
      'guard.mjs': `import { defineHook } from 'familiar';\nexport default defineHook('tool:before', () => ({ block: 'guarded' }));\n`,
    });
    expect((await harness.call('echo', { text: 'a' })).result.output).toBe('guarded');
    rmSync(path.join(harness.toolsDir, 'guard.mjs'));
    rmSync(path.join(harness.toolsDir, 'echo.mjs'));
    writeTools(harness.toolsDir, { 'other.mjs': echo('other') });
    await harness.custom.reload();
    expect(harness.registry.get('echo')).toBeUndefined();
    expect((await harness.call('other', { text: 'b' })).result.output).toBe('echo: b');
  });

  it('starts with an empty folder, then a module put there is found by a reload and by the watch', async () => {
    harness = await makeHarness({}, {}, { mode: 'daemon' });
    expect(harness.custom.report()).toEqual({ dir: harness.toolsDir, files: [], problems: [] });
    writeTools(harness.toolsDir, { 'echo.mjs': echo('echo') });
    await harness.custom.reload();
    expect((await harness.call('echo', { text: 'a' })).result.output).toBe('echo: a');
    await harness.custom.part.start?.();
    writeTools(harness.toolsDir, { 'other.mjs': echo('other', 'watched') });
    await waitUntil(async () => (await harness?.call('other', { text: 'b' }))?.result.output === 'watched: b', 5000, 'the new module to be picked up');
  });

  it('does nothing when nothing changed', async () => {
    harness = await makeHarness({ 'echo.mjs': echo('echo') });
    const before = harness.custom.report().files[0]?.loadedAt;
    await new Promise((resolve) => setTimeout(resolve, 5));
    await harness.custom.reload();
    expect(harness.custom.report().files[0]?.loadedAt).toBe(before);
  });

  it('watches the folder in the running daemon: a saved edit is live in a moment', async () => {
    harness = await makeHarness({ 'echo.mjs': echo('echo') }, {}, { mode: 'daemon' });
    await harness.custom.part.start?.();
    writeFileSync(path.join(harness.toolsDir, 'echo.mjs'), echo('echo', 'watched'));
    await waitUntil(async () => (await harness?.call('echo', { text: 'a' }))?.result.output === 'watched: a', 5000, 'the edit to be picked up');
    expect(harness.logged('custom tools: reloaded echo.mjs sha256')).toHaveLength(1);
  });

  it('lists every loaded file with its sha256 at start, saying it runs with the daemon\'s rights', async () => {
    harness = await makeHarness({ 'echo.mjs': echo('echo') }, {}, { mode: 'daemon' });
    const [summary] = harness.logged('run inside the daemon with its full rights');
    expect(summary).toMatchObject({ level: 30 });
    const [listed] = harness.logged('custom tools: loaded echo.mjs sha256 ');
    expect(listed).toMatchObject({ sha256: expect.stringMatching(/^[0-9a-f]{64}$/), tools: ['echo'] });
  });
});
