// What a start costs in the real daemon (`node dist/main.js start`; run `npm run build` first): the bundled
// morning briefing is a draft with a cron trigger, and a daemon whose only crons are drafts' never evaluates a
// schedule, so it never loads cron-parser (with luxon and ICU's formatting data, about 50 ms and 10 MiB). An
// active cron skill is armed at start and does load it. The CommonJS modules a process loaded are read from
// require.cache when it exits (a preload script, --require).
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, writeTestConfig } from '../helpers/app.js';
import { startDaemon } from '../helpers/daemon.js';

const PRELOAD = `process.on('exit', () => require('node:fs').writeFileSync(process.env.LOADED_OUT, Object.keys(require.cache).join('\\n')));\n`;

async function modulesLoadedByStart(status: 'draft' | 'active'): Promise<string[]> {
  const dir = tempDir('familiar-skills-start-');
  writeTestConfig(dir, undefined, { log: { level: 'info', format: 'json' } });
  cpSync(path.resolve('skills', 'morning-briefing'), path.join(dir, 'skills', 'morning-briefing'), { recursive: true });
  const skill = path.join(dir, 'skills', 'morning-briefing', 'SKILL.md');
  writeFileSync(skill, readFileSync(skill, 'utf8').replace(/^status: draft$/m, `status: ${status}`));
  const preload = path.join(dir, 'preload.cjs');
  writeFileSync(preload, PRELOAD);
  const out = path.join(dir, 'loaded.txt');
  const daemon = startDaemon(dir, { TEST_LLM_KEY: 'sk-test', LOADED_OUT: out, NODE_OPTIONS: `--require ${preload}` });
  await Promise.race([daemon.ready, daemon.exited.then((code) => { throw new Error(`daemon exited ${code}: ${daemon.stderr()}`); })]);
  expect(await daemon.term()).toBe(0);
  expect(daemon.stderr()).toContain(`skills: 1 skill(s), ${status === 'active' ? 1 : 0} active`);
  expect(existsSync(out)).toBe(true);
  return readFileSync(out, 'utf8').split('\n');
}

describe('a daemon start and cron schedules', () => {
  it('does not load cron-parser when its only cron skill is a draft', async () => {
    const loaded = await modulesLoadedByStart('draft');
    expect(loaded.some((file) => file.includes('better-sqlite3'))).toBe(true);
    expect(loaded.filter((file) => /node_modules\/(cron-parser|luxon)\//.test(file))).toEqual([]);
  });

  it('loads it when the cron skill is active (its schedule is armed at start)', async () => {
    const loaded = await modulesLoadedByStart('active');
    expect(loaded.some((file) => file.includes('node_modules/cron-parser/'))).toBe(true);
  });
});
