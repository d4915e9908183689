import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { BUNDLED, samePath } from './folders.js';
import type { Logger } from '../log.js';

export type SeedOutcome = 'exists' | 'seeded' | 'created';

/**
 * First use of the person's memory or skills folder: when `target` does not exist yet it is made as a copy of
 * Familiar's bundled folder (the starter memory, the bundled skills) — as that folder is now, so a checkout in
 * which the person already edited `memory/` or activated a skill brings those edits along. An existing folder
 * is never touched, and the bundled folder is never written: upgrades (`git pull`, a new image) cannot conflict
 * with the person's data. The copy goes to a temporary sibling and is renamed into place, so a crash mid-copy
 * leaves no half-filled folder that would count as "exists" next time.
 * Contract: throws only when the target cannot be created (the caller's error is then the right one).
 */
export function seedFolder(kind: 'memory' | 'skills', target: string, log?: Logger, seed: string = BUNDLED[kind === 'memory' ? 'memory_dir' : 'skills_dir']): SeedOutcome {
  if (existsSync(target)) return 'exists';
  // The person's alone, like the data folder: the copy is 0700 whatever the seed's mode.
  if (!existsSync(seed) || samePath(seed, target)) {
    mkdirSync(target, { recursive: true, mode: 0o700 });
    return 'created';
  }
  mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
  const partial = `${target}.seeding-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  cpSync(seed, partial, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
  makePrivate(partial);
  try {
    renameSync(partial, target);
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    // Another process (a CLI command next to the daemon) made it first: theirs stands.
    if (existsSync(target)) return 'exists';
    throw error;
  }
  log?.info({ from: seed, to: target }, `${kind}: made ${target} from Familiar's ${kind === 'memory' ? 'starter memory' : 'bundled skills'} (yours to edit; ${seed} is never written)`);
  return 'seeded';
}

/** The copy is the person's alone: group and other bits off every folder and file (the owner's own bits kept). */
function makePrivate(dir: string): void {
  chmodSync(dir, 0o700);
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const entry = path.join(dir, name);
    const stats = lstatSync(entry);
    if (!stats.isSymbolicLink()) chmodSync(entry, stats.mode & 0o700);
  }
}
