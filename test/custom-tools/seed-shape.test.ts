// Tool modules written as seed 001 writes them: { schema: { name, description, parameters }, execute }, with or
// without defineTool, returning { success: false, error } on failure and reading ctx.input, ctx.state and ctx.cancel.
import { afterEach, describe, expect, it } from 'vitest';
import { auditRows, makeHarness, type Harness } from './helpers.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const seedEcho = `
import { defineTool } from 'familiar';
export default defineTool({
  schema: {
    name: 'seed_echo',
    description: 'Echoes, as seed 001 writes a tool.',
    parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
  effects: [],
  async execute({ text }, ctx) {
    if (text === 'fail') return { success: false, error: 'nothing to echo' };
    const count = (ctx.state.get('count') ?? 0) + 1;
    ctx.state.set('count', count);
    return { success: true, output: text + ' (' + count + ', asked: ' + ctx.input + ')' };
  },
});`;

describe('the seed\'s tool shape', () => {
  it('loads through defineTool and runs', async () => {
    harness = await makeHarness({ 'seed-echo.mjs': seedEcho });
    expect(harness.registry.get('seed_echo')?.tool.description).toBe('Echoes, as seed 001 writes a tool.');
    const { result } = await harness.call('seed_echo', { text: 'hi' }, { input: 'say hi', state: new Map() });
    expect(result).toEqual({ success: true, output: 'hi (1, asked: say hi)' });
  });

  it('loads as a plain default export, without defineTool', async () => {
    harness = await makeHarness({
      'plain.mjs': `export default { schema: { name: 'plain', description: 'x', parameters: { type: 'object', properties: {} } }, execute: () => 'plain ok' };`,
    });
    expect((await harness.call('plain')).result).toEqual({ success: true, output: 'plain ok' });
  });

  it('keeps the named permissions a module declares, and refuses ones that are not names', async () => {
    harness = await makeHarness({
      'lamp.mjs': `export default { name: 'lamp', description: 'x', parameters: { type: 'object', properties: {} }, permissions: ['home.lights'], callPermissions: () => [], execute: () => 'on' };`,
      'bad.mjs': `export default { name: 'bad', description: 'x', parameters: { type: 'object', properties: {} }, permissions: 'home.lights', execute: () => 'on' };`,
    });
    expect(harness.registry.get('lamp')?.permissions).toEqual(['home.lights']);
    expect(harness.registry.get('bad')).toBeUndefined();
    expect(harness.custom.report().problems[0]?.error).toMatch(/permissions must be a list of names/);
  });

  it('refuses a definition that mixes the two shapes, saying so', async () => {
    harness = await makeHarness({
      'mixed.mjs': `import { defineTool } from 'familiar';
export default defineTool({ name: 'mixed', schema: { name: 'mixed', description: 'x', parameters: { type: 'object' } }, execute: () => 'x' });`,
    });
    expect(harness.registry.get('mixed')).toBeUndefined();
    expect(harness.custom.report().problems[0]?.error).toMatch(/either inside schema \(as seed 001 does\) or beside execute, not both/);
  });

  it('records { success: false, error } as a failure: the model\'s text and the audit', async () => {
    harness = await makeHarness({ 'seed-echo.mjs': seedEcho });
    const { result } = await harness.call('seed_echo', { text: 'fail' });
    expect(result).toEqual({ success: false, output: 'nothing to echo' });
    expect(auditRows(harness.db)).toEqual([expect.objectContaining({ tool: 'seed_echo', success: 0, output: 'nothing to echo' })]);
  });

  it('shares ctx.state between the calls given the same state, and gives the turn\'s text as ctx.input', async () => {
    harness = await makeHarness({ 'seed-echo.mjs': seedEcho });
    const state = new Map<string, unknown>();
    await harness.call('seed_echo', { text: 'one' }, { input: 'count', state });
    const { result } = await harness.call('seed_echo', { text: 'two' }, { input: 'count', state });
    expect(result.output).toBe('two (2, asked: count)');
  });
});
