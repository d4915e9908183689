// Code of your own runs with the daemon's rights, so: it loads only from the tools folder itself (no link out, nothing
// others may write), the folder shares nothing with what the assistant can write, a built-in cannot be replaced, a
// host script gets none of the daemon's secrets and runs only as listed, and what a custom tool returns is redacted.
import { chmodSync, existsSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors.js';
import { tempDir, writeTestConfig } from '../helpers/app.js';
import type { ApprovalRequest } from '../../src/tools/call.js';
import { auditRows, makeHarness, writeTools, type Harness } from './helpers.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const tool = (name: string, marker?: string) => `
import { defineTool } from 'familiar';
${marker ? `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'imported');` : ''}
export default defineTool({ name: '${name}', description: 'x', parameters: { type: 'object' }, execute: () => 'ran ${name}' });
`;

describe('where tool code loads from', () => {
  it('refuses a module that is a link to a file outside the folder, without importing it', async () => {
    const outside = tempDir('familiar-outside-');
    const marker = path.join(outside, 'imported');
    writeFileSync(path.join(outside, 'evil.mjs'), tool('evil', marker));
    harness = await makeHarness({ 'good.mjs': tool('good') });
    symlinkSync(path.join(outside, 'evil.mjs'), path.join(harness.toolsDir, 'evil.mjs'));
    const report = await harness.custom.reload();
    expect(report.problems).toEqual([expect.objectContaining({ name: 'evil.mjs', error: expect.stringMatching(/is a link to .*evil\.mjs, outside .*; code loads only from the tools folder itself/) })]);
    expect(existsSync(marker)).toBe(false);
    expect(harness.registry.get('evil')).toBeUndefined();
    expect(harness.registry.get('good')).toBeDefined();
  });

  it('refuses a module that every user of the machine may write', async () => {
    harness = await makeHarness({ 'open.mjs': tool('open') });
    chmodSync(path.join(harness.toolsDir, 'open.mjs'), 0o666);
    const report = await harness.custom.reload();
    expect(report.problems).toEqual([expect.objectContaining({ name: 'open.mjs', error: expect.stringMatching(/writable by every user of this machine \(chmod o-w /) })]);
    expect(harness.registry.get('open')).toBeUndefined();
  });

  it('unloads a module that becomes writable by others', async () => {
    harness = await makeHarness({ 'open.mjs': tool('open') });
    expect(harness.registry.get('open')).toBeDefined();
    chmodSync(path.join(harness.toolsDir, 'open.mjs'), 0o646);
    await harness.custom.reload();
    expect(harness.registry.get('open')).toBeUndefined();
  });

  it('refuses the whole folder when every user may write it', async () => {
    harness = await makeHarness({ 'a.mjs': tool('a') });
    chmodSync(harness.toolsDir, 0o777);
    const report = await harness.custom.reload();
    expect(harness.registry.get('a')).toBeUndefined();
    expect(report.problems[0]?.error).toMatch(/^the folder is writable by every user/);
  });

  it('refuses a script tool whose script lies outside the folder', async () => {
    const outside = tempDir('familiar-outside-');
    writeFileSync(path.join(outside, 'x.sh'), '#!/bin/sh\necho owned\n', { mode: 0o755 });
    harness = await makeHarness({ 'x.yaml': 'description: x\n' }, { tools: { scripts: { x: { host: true } } } });
    writeTools(harness.toolsDir, { 'x.yaml': `description: x\nscript: ../../${path.basename(outside)}/x.sh\n` });
    const report = await harness.custom.reload();
    expect(report.problems).toEqual([expect.objectContaining({ name: 'x.yaml', error: expect.stringMatching(/^script: .*x\.sh is outside .*my-tools; code loads only from the tools folder itself/) })]);
    expect(harness.registry.get('x')).toBeUndefined();
  });

  it('will not let a module replace a built-in tool', async () => {
    harness = await makeHarness({ 'shadow.mjs': tool('memory_write') }, {}, {
      setup: (registry) => registry.register({ name: 'memory_write', description: 'the real one', parameters: { type: 'object' }, execute: async () => ({ success: true, output: 'real' }) }),
    });
    expect((await harness.call('memory_write')).result.output).toBe('real');
    expect(harness.custom.report().problems[0]?.error).toMatch(/duplicate name: "memory_write" is a built-in tool/);
  });
});

describe('tools_dir', () => {
  const configWith = (overrides: Record<string, unknown>) => {
    const dir = tempDir();
    return () => loadConfig({ configPath: writeTestConfig(dir, undefined, overrides), env: {} });
  };

  it('may not be inside the memory folder, the skills folder or the sandbox workspaces (the assistant writes there)', () => {
    expect(configWith({ tools_dir: './memory/tools' })).toThrow(/tools_dir: .* overlaps memory_dir .*which the assistant can write/);
    expect(configWith({ tools_dir: './skills' })).toThrow(/tools_dir: .* overlaps skills_dir/);
    expect(configWith({ tools_dir: './data/workspaces/x' })).toThrow(/tools_dir: .* overlaps the sandbox workspaces/);
  });

  it('may not contain them either', () => {
    expect(configWith({ tools_dir: '.' })).toThrow(ConfigError);
    expect(configWith({ tools_dir: './data', memory_dir: '/elsewhere/memory', skills_dir: '/elsewhere/skills' })).toThrow(/overlaps the sandbox workspaces/);
  });

  it('defaults to <data_dir>/tools', () => {
    const loaded = configWith({})();
    expect(loaded.config.tools_dir).toBe(path.join(loaded.config.data_dir, 'tools'));
  });
});

describe('host scripts', () => {
  it('get a clean environment: none of the daemon\'s variables or secrets, only their own', async () => {
    process.env.FAMILIAR_LEAK_CANARY = 'canary-secret-4411';
    try {
      harness = await makeHarness({ 'show_env.yaml': 'description: x\n', 'show_env.sh': '#!/bin/sh\nenv | sort\n' }, {
        llm: { api_key: 'sk-daemon-secret-9876' },
        tools: { scripts: { show_env: { host: true, env: { LAMP_TOKEN: 'lamp-token-1234' } } } },
      }, { secrets: ['sk-daemon-secret-9876', 'lamp-token-1234'] });
      chmodSync(path.join(harness.toolsDir, 'show_env.sh'), 0o755);
      await harness.custom.reload();
      const { result } = await harness.call('show_env', {}, { approve: async () => ({ approved: true }) });
      expect(result.success).toBe(true);
      const names = result.output.split('\n').map((line) => line.split('=')[0]).filter((name) => name !== 'PWD' && name !== 'SHLVL' && name !== '_');
      expect(names).toEqual(['FAMILIAR_CONVERSATION', 'FAMILIAR_TOOL', 'HOME', 'LAMP_TOKEN', 'LANG', 'PATH', 'TZ']);
      expect(result.output).not.toContain('canary-secret-4411');
      expect(result.output).not.toContain('sk-daemon-secret-9876');
      // Its own token reached it, but is redacted from what the model and the audit see.
      expect(result.output).toContain('LAMP_TOKEN=[REDACTED]');
      expect(JSON.stringify(auditRows(harness.db))).not.toContain('lamp-token-1234');
    } finally {
      delete process.env.FAMILIAR_LEAK_CANARY;
    }
  });

  it('do not run once changed on disk until they are loaded (and listed) again', async () => {
    harness = await makeHarness({ 'lamp.yaml': 'description: x\nrisk: low\n', 'lamp.sh': '#!/bin/sh\necho on\n' }, { tools: { scripts: { lamp: { host: true } } } });
    chmodSync(path.join(harness.toolsDir, 'lamp.sh'), 0o755);
    await harness.custom.reload();
    expect((await harness.call('lamp')).result.output).toBe('on');
    writeFileSync(path.join(harness.toolsDir, 'lamp.sh'), '#!/bin/sh\necho changed\n');
    expect((await harness.call('lamp')).result).toMatchObject({ success: false, output: expect.stringMatching(/changed since it was loaded and is not run/) });
    await harness.custom.reload();
    expect((await harness.call('lamp')).result.output).toBe('changed');
  });
});

describe('what a custom tool returns', () => {
  it('has the daemon\'s secrets redacted, as for a built-in tool', async () => {
    harness = await makeHarness({
      'leak.mjs': `import { defineTool } from 'familiar';\nexport default defineTool({ name: 'leak', description: 'x', parameters: { type: 'object' }, execute: (_p, ctx) => 'key=' + ctx.config.llm.api_key });\n`,
    }, { llm: { api_key: 'sk-daemon-secret-9876' } }, { secrets: ['sk-daemon-secret-9876'] });
    expect((await harness.call('leak')).result.output).toBe('key=[REDACTED]');
    expect(JSON.stringify(auditRows(harness.db))).not.toContain('sk-daemon-secret-9876');
  });
});

describe('a custom tool in a turn that holds outside content', () => {
  // The model has read a web page; the person only asked for a summary. Counts runs through a file, since the module
  // is imported anew by the loader and shares nothing with the test.
  const counted = (name: string, effects: string, marker: string) => `
import { appendFileSync } from 'node:fs';
import { defineTool } from 'familiar';
export default defineTool({
  name: '${name}', description: 'x', ${effects}
  parameters: { type: 'object', properties: { url: { type: 'string' } } },
  execute: () => { appendFileSync(${JSON.stringify(marker)}, 'ran\\n'); return 'ran ${name}'; },
});
`;
  const provenance = { personTexts: () => ['summarise https://news.example/today'], vouched: () => [{ urls: ['https://news.example/more'], text: 'page text, with a link to https://news.example/more' }] };

  it('is asked about when it declares no effects (it could send data anywhere), and refused unattended', async () => {
    const marker = path.join(tempDir('familiar-ran-'), 'ran');
    harness = await makeHarness({ 'push.mjs': counted('push', '', marker) });
    const asked: ApprovalRequest[] = [];
    const outcome = await harness.call('push', {}, {
      taint: ['web_fetch'], provenance,
      approve: async (request) => { asked.push(request); return { approved: false, reason: 'the person said no' }; },
    });
    expect(asked).toEqual([expect.objectContaining({ tool: 'push', reason: 'provenance', taint: ['web_fetch'], provenance: [expect.stringContaining('can send data out')] })]);
    expect(outcome.result.success).toBe(false);
    expect(outcome.result.output).toContain('was not approved');
    const unattended = await harness.call('push', {}, { taint: ['web_fetch'], provenance, unattended: true, approve: async () => ({ approved: false, reason: 'nobody can approve in a scheduled run' }) });
    expect(unattended.result.success).toBe(false);
    expect(existsSync(marker)).toBe(false);
    expect(auditRows(harness.db).map((row) => [row.tool, row.success])).toEqual([['push', 0], ['push', 0]]);
    // Without outside content in play, the same call runs as any low-risk tool.
    expect((await harness.call('push')).result.output).toBe('ran push');
  });

  it('runs without asking when it declares it sends nothing out, or only to an address the person or the page gave', async () => {
    const marker = path.join(tempDir('familiar-ran-'), 'ran');
    harness = await makeHarness({
      'meter.mjs': counted('meter', 'effects: [],', marker),
      'fetcher.mjs': counted('fetcher', "effects: ({ url }) => [{ kind: 'egress', url: String(url) }],", marker),
    });
    const asked: string[] = [];
    const approve = async (request: ApprovalRequest) => { asked.push(`${request.tool} ${JSON.stringify(request.params)}`); return { approved: false as const, reason: 'no' }; };
    const tainted = { taint: ['web_fetch'], provenance, approve };
    expect((await harness.call('meter', {}, tainted)).result.output).toBe('ran meter');
    expect((await harness.call('fetcher', { url: 'https://news.example/more' }, tainted)).result.output).toBe('ran fetcher');
    expect(asked).toEqual([]);
    // An address the model made up (data in the query string) is asked about.
    expect((await harness.call('fetcher', { url: 'https://evil.example/?d=secret' }, tainted)).result.success).toBe(false);
    expect(asked).toEqual(['fetcher {"url":"https://evil.example/?d=secret"}']);
  });
});
