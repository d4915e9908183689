import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/**
 * Scripts whose smoke run would cost more than the suite gives one (~5 s). agentdojo's harness runs under vitest, so
 * even one pair pays a vitest start and the daemon's TypeScript transformed (8 s of CPU, measured);
 * test/gate/agentdojo-security.test.ts runs that harness on six pairs instead.
 */
const NOT_SMOKED = new Set(['agentdojo']);
/** Every script in bench/ but the shared helpers, the runner itself and those above. */
const SCRIPTS = readdirSync(path.join(ROOT, 'bench')).filter((name) => name.endsWith('.mjs') && name !== 'lib.mjs' && name !== 'run-all.mjs').map((name) => name.replace(/\.mjs$/, '')).filter((name) => !NOT_SMOKED.has(name));

interface ScriptReport {
  code: number | null;
  result?: unknown;
  reason?: string;
}

/**
 * Every benchmark once, in its tiny configuration (`--smoke`: a handful of turns, calls and starts), through the
 * runner that `npm run bench` uses: a script that no longer runs (a moved module, a renamed field) fails here instead
 * of the next time someone measures. No figure is checked; the runner needs the built daemon (`npm test` builds it).
 */
describe('the benchmarks', () => {
  let scripts: Record<string, ScriptReport> = {};

  beforeAll(async () => {
    const stdout = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, [path.join(ROOT, 'bench', 'run-all.mjs'), '--smoke', '--json'], {
        cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? ROOT }, stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let errors = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (errors = (errors + chunk.toString()).slice(-4000)));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`bench/run-all.mjs exited ${code}: ${errors}`))));
    });
    const line = stdout.trim().split('\n').findLast((entry) => entry.startsWith('{')) ?? '{}';
    scripts = (JSON.parse(line) as { scripts?: Record<string, ScriptReport> }).scripts ?? {};
  }, 600_000);

  it.each(SCRIPTS)('bench/%s.mjs runs from this checkout and reports its figures', (name) => {
    const report = scripts[name];
    expect(report, `bench/run-all.mjs does not run ${name}`).toBeDefined();
    expect(report?.reason).toBeUndefined();
    expect(report?.code).toBe(0);
    expect(report?.result).toBeTypeOf('object');
  });
});
