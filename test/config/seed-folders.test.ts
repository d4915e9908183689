import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { BUNDLED } from '../../src/config/folders.js';
import { seedFolder } from '../../src/config/seed-folders.js';
import { tempDir } from '../helpers/app.js';
import { captureIo } from '../helpers/io.js';

/** path -> sha256 of every file under `dir` (none: empty map). */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out.set(path.relative(dir, file), createHash('sha256').update(readFileSync(file)).digest('hex'));
  }
  return out;
}

describe('the person\'s memory and skills folders on first use', () => {
  it('a new folder starts as a copy of the bundled one', () => {
    const target = path.join(tempDir(), 'data', 'skills');
    expect(seedFolder('skills', target)).toBe('seeded');
    expect(snapshot(target)).toEqual(snapshot(BUNDLED.skills_dir));
    expect(snapshot(target).has(path.join('morning-briefing', 'SKILL.md'))).toBe(true);
  });

  it('an existing folder is left exactly as it is (no seed files added back)', () => {
    const target = path.join(tempDir(), 'memory');
    mkdirSync(target);
    writeFileSync(path.join(target, 'mine.md'), 'my notes\n');
    expect(seedFolder('memory', target)).toBe('exists');
    expect([...snapshot(target).keys()]).toEqual(['mine.md']);
  });

  it('copies what the bundled folder holds now, so edits made in a checkout come along', () => {
    const seed = path.join(tempDir(), 'seed');
    mkdirSync(path.join(seed, 'notes'), { recursive: true });
    writeFileSync(path.join(seed, 'profile.md'), '# Profile\n- Name: Ada\n');
    writeFileSync(path.join(seed, 'notes', 'a.md'), 'a\n');
    const target = path.join(tempDir(), 'memory');
    expect(seedFolder('memory', target, undefined, seed)).toBe('seeded');
    expect(readFileSync(path.join(target, 'profile.md'), 'utf8')).toBe('# Profile\n- Name: Ada\n');
    expect(readFileSync(path.join(target, 'notes', 'a.md'), 'utf8')).toBe('a\n');
    expect(readdirSync(path.dirname(target))).toEqual(['memory']);
  });

  it('`familiar skills activate` with a config naming the bundled folders never changes Familiar\'s files', async () => {
    const before = { skills: snapshot(BUNDLED.skills_dir), memory: snapshot(BUNDLED.memory_dir) };
    const dir = tempDir();
    const configPath = path.join(dir, 'config.yaml');
    // What a set-up made from the old example had: the checkout's own folders.
    writeFileSync(configPath, `llm:\n  base_url: http://127.0.0.1:9/v1\nlog:\n  level: warn\n  format: json\nmemory_dir: ${BUNDLED.memory_dir}\nskills_dir: ${BUNDLED.skills_dir}\n`);
    const io = captureIo();
    const code = await runCli(['skills', 'activate', 'morning-briefing', '--config', configPath], io);
    expect(code, io.err()).toBe(0);
    expect(snapshot(BUNDLED.skills_dir)).toEqual(before.skills);
    expect(snapshot(BUNDLED.memory_dir)).toEqual(before.memory);
    expect(existsSync(path.join(BUNDLED.skills_dir, 'skills.lock'))).toBe(false);
    // The person's copy is what changed.
    expect(readFileSync(path.join(dir, 'data', 'skills', 'morning-briefing', 'SKILL.md'), 'utf8')).toMatch(/^status: active/m);
    expect(existsSync(path.join(dir, 'data', 'memory', 'profile.md'))).toBe(true);
  });
});
