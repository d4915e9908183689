// `familiar tools new|test|list` as a person runs them: the built command line (npm run build first), a config and a
// tools folder outside the checkout, the generated tests run with Node's own test runner.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAudit } from '../../src/audit/query.js';
import { openDatabase } from '../../src/db/database.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { tempDir, writeTestConfig } from '../helpers/app.js';

const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('familiar tools new and test', () => {
  let fake: FakeOpenAI;
  let dir: string;
  let toolsDir: string;
  const familiar = (...args: string[]) => run(process.execPath, [MAIN, ...args, '--config', path.join(dir, 'config.yaml')], dir, { TEST_LLM_KEY: fake.apiKey });

  beforeAll(async () => {
    fake = await startOpenAiServer();
    dir = tempDir('familiar-cli-tools-');
    writeTestConfig(dir, fake, { tools: { scripts: { word_count: { host: true } } } });
    toolsDir = path.join(dir, 'data', 'tools');
  });
  afterAll(async () => {
    await fake.close();
  });

  it('writes a working module with a test that passes under node --test', async () => {
    const made = await familiar('tools', 'new', 'lamp_toggle');
    expect(made.code).toBe(0);
    expect(made.stdout).toContain(`Wrote ${path.join(toolsDir, 'lamp_toggle.mjs')}, ${path.join(toolsDir, 'lamp_toggle.test.mjs')}`);
    expect(made.stdout).toContain('full rights');
    const tested = await run(process.execPath, ['--test', 'lamp_toggle.test.mjs'], toolsDir);
    expect(tested.stdout).toMatch(/# pass 1\n# fail 0/);
  });

  it('runs one call of it outside a chat, through the registry: printed, audited', async () => {
    const result = await familiar('tools', 'test', 'lamp_toggle', '{"text": "living room"}');
    expect(result).toMatchObject({ code: 0, stdout: 'LIVING ROOM\n' });
    expect(result.stderr).toMatch(/\(ok in \d+ ms; audited as call [0-9a-f-]+: familiar audit --tool lamp_toggle\)/);
    const db = openDatabase(path.join(dir, 'data'));
    try {
      expect(listAudit(db, { tool: 'lamp_toggle' })[0]).toMatchObject({ input: '{"text":"living room"}', output: 'LIVING ROOM', success: true });
    } finally {
      db.close();
    }
  });

  it('validates the arguments as in a chat, and exits 1 when the call fails', async () => {
    const missing = await familiar('tools', 'test', 'lamp_toggle', '{}');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('Invalid arguments for lamp_toggle: missing required field "text"');
    const badJson = await familiar('tools', 'test', 'lamp_toggle', '{text: hi}');
    expect(badJson.code).toBe(1);
    expect(badJson.stderr).toMatch(/Arguments for lamp_toggle are not valid JSON/);
  });

  it('writes a script tool with a test, and runs it (here on the host, as config.yaml allows)', async () => {
    const made = await familiar('tools', 'new', 'word_count', '--script');
    expect(made.code).toBe(0);
    expect(made.stdout).not.toContain('tools.sandbox is not configured');
    const tested = await run(process.execPath, ['--test', 'word_count.test.mjs'], toolsDir);
    expect(tested.stdout).toMatch(/# pass 1\n# fail 0/);
    const result = await familiar('tools', 'test', 'word_count', '{"text": "one two three"}');
    expect(result).toMatchObject({ code: 0, stdout: '3 word(s)\n' });
  });

  it('asks for approval of a high-risk tool: refused without a terminal, approved with --yes', async () => {
    writeFileSync(path.join(toolsDir, 'word_count.yaml'), readFileSync(path.join(toolsDir, 'word_count.yaml'), 'utf8').replace('risk: low', 'risk: high'));
    const refused = await familiar('tools', 'test', 'word_count', '{"text": "a"}');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/was not approved: nobody can be asked/);
    expect(refused.stderr).toContain('--yes approves this one call');
    const approved = await familiar('tools', 'test', 'word_count', '{"text": "a"}', '--yes');
    expect(approved).toMatchObject({ code: 0, stdout: '1 word(s)\n' });
    expect(approved.stderr).toContain('approved by familiar tools test --yes');
  });

  it('says why a tool is not there: its module did not load, or the name is near another', async () => {
    writeFileSync(path.join(toolsDir, 'broken.mjs'), 'export default {');
    const broken = await familiar('tools', 'test', 'broken', '{}');
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/broken\.mjs did not load: syntax error at line 1/);
    const near = await familiar('tools', 'test', 'lamp_togle', '{}');
    expect(near.stderr).toContain('no tool named "lamp_togle"; did you mean "lamp_toggle"?');
  });

  it('lists your tools among the others, saying which file they come from', async () => {
    const listed = await familiar('tools', 'list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^lamp_toggle — low risk — yours: lamp_toggle\.mjs$/m);
    expect(listed.stdout).toMatch(/^memory_read — low risk$/m);
    expect(listed.stderr).toMatch(/custom tool broken\.mjs: syntax error/);
  });

  it('refuses to overwrite, and refuses names the model could not call', async () => {
    expect((await familiar('tools', 'new', 'lamp_toggle')).stderr).toMatch(/lamp_toggle\.mjs, .*lamp_toggle\.test\.mjs already exist; pick another name/);
    expect((await familiar('tools', 'new', 'lamp toggle')).stderr).toContain('"lamp toggle" is not a tool name');
  });

  it('writes a TypeScript-checked module: the editor resolves familiar to this installation\'s types', async () => {
    // What an editor does: TypeScript resolves `familiar` through the link tools new made, to dist/sdk.d.ts.
    const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
    const check = (file: string) => run(process.execPath, [tsc, '--noEmit', '--allowJs', '--checkJs', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--skipLibCheck', '--types', 'node', '--typeRoots', fileURLToPath(new URL('../../node_modules/@types', import.meta.url)), file], toolsDir);
    const checked = await check('lamp_toggle.mjs');
    expect(checked.stdout + checked.stderr).toBe('');
    expect(checked.code).toBe(0);
    // And a mistake is caught: the types are really there.
    writeFileSync(path.join(toolsDir, '_typo.mjs'), "// @ts-check\nimport { defineTool } from 'familiar';\nexport default defineTool({ name: 'x', description: 'x', parameters: {}, risk: 'medium', execute: () => 'x' });\n");
    const typo = await check('_typo.mjs');
    expect(typo.stdout).toMatch(/_typo\.mjs\(3,\d+\): error TS2322: Type '"medium"' is not assignable/);
  }, 180_000); // Two whole TypeScript runs: on a loaded 2-core machine they take longer than the default 30 s.
});
