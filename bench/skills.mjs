// Skills: what reading SKILL.md fresh on every use costs (list with N skills; the store parses again only a text that
// changed), and the content hash that pins hub skills (computed before every run of one).
// Run: npm run build && node bench/skills.mjs [--json]
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openDatabase } from '../dist/db/database.js';
import { hashSkillFolder } from '../dist/skills/lock.js';
import { SkillStore } from '../dist/skills/store.js';
import { percentile, sized, tempDir } from './lib.mjs';

const skillText = (i) => `---
name: Skill ${i}
description: A benchmark skill.
version: 1.0.0
status: active
trigger: { type: cron, cron: "0 ${i % 24} * * *" }
tools: [memory_read, memory_search, web_search]
---

${'Do the thing carefully and report the result. '.repeat(40)}
`;

function timeIt(fn, rounds) {
  const samples = [];
  for (let i = 0; i < rounds; i += 1) {
    const started = performance.now();
    fn();
    samples.push(performance.now() - started);
  }
  return samples;
}

const json = process.argv.includes('--json');
const results = {};
const line = (label, samples) => {
  results[label] = { p50: percentile(samples, 50), p95: percentile(samples, 95), rounds: samples.length };
  if (!json) console.log(`${label.padEnd(44)} p50 ${percentile(samples, 50).toFixed(2)} ms  p95 ${percentile(samples, 95).toFixed(2)} ms  (${samples.length} rounds)`);
};

for (const count of sized([10, 100, 500], [3])) {
  const dir = tempDir();
  const skills = path.join(dir, 'skills');
  for (let i = 0; i < count; i += 1) {
    mkdirSync(path.join(skills, `skill-${i}`), { recursive: true });
    writeFileSync(path.join(skills, `skill-${i}`, 'SKILL.md'), skillText(i));
  }
  const db = openDatabase(path.join(dir, 'data'));
  const store = new SkillStore({ dir: skills, db, timeZone: 'Europe/Paris' });
  timeIt(() => store.list(), sized(5, 1));
  line(`list ${count} skills (read + parse + validate)`, timeIt(() => store.list(), sized(count >= 500 ? 20 : 100, 2)));
  line(`get one of ${count} skills`, timeIt(() => store.get('skill-2'), sized(500, 2)));
  db.close();
}

for (const [files, size] of sized([[5, 2_000], [50, 10_000], [200, 25_000]], [[2, 1_000]])) {
  const dir = path.join(tempDir(), 'hub-skill');
  mkdirSync(path.join(dir, 'scripts'), { recursive: true });
  writeFileSync(path.join(dir, 'SKILL.md'), skillText(1));
  for (let i = 0; i < files; i += 1) writeFileSync(path.join(dir, 'scripts', `f${i}.py`), 'x'.repeat(size));
  line(`hash a skill folder: ${files} files x ${size / 1000} kB`, timeIt(() => hashSkillFolder(dir), sized(50, 2)));
}
if (json) console.log(JSON.stringify(results));
