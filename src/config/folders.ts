import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from './schema.js';

/** Familiar's own installation (a checkout, node_modules/familiar, /app in the image). */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The starter memory and the bundled skills: seeds copied into the person's folders, never written to. */
export const BUNDLED = { memory_dir: path.join(PACKAGE_ROOT, 'memory'), skills_dir: path.join(PACKAGE_ROOT, 'skills') } as const;

export interface Relocation {
  key: 'memory_dir' | 'skills_dir';
  /** What the config named (or the default before this version): Familiar's own bundled folder. */
  from: string;
  /** Where the person's folder is instead. */
  to: string;
}

/**
 * Makes data_dir, memory_dir and skills_dir absolute and keeps the person's data out of Familiar's own files.
 * - data_dir: as configured (default ./data), relative to `base`.
 * - memory_dir / skills_dir, when set: as configured — unless that is Familiar's bundled folder (in a checkout:
 *   tracked by git, so activating a skill would edit a tracked file and `git pull` would conflict with the
 *   person's edits); then `<data_dir>/memory` (`/skills`) is used and the move is returned.
 * - when unset: `<base>/memory` (`/skills`) if such a folder exists and is not the bundled one (a set-up made
 *   before the default moved), else `<data_dir>/memory` (`/skills`).
 * The folders are not created here; src/ops/seed-folders.ts fills a new one from the bundled seeds.
 */
export function resolveFolders(config: Config, base: string): Relocation[] {
  config.data_dir = path.resolve(base, config.data_dir);
  // The daemon's log file is the person's data too: in data_dir unless the config says where (or off).
  if (config.log.file === '') config.log.file = path.join(config.data_dir, 'logs', 'familiar.log');
  else if (config.log.file !== 'off') config.log.file = path.resolve(base, config.log.file);
  const relocated: Relocation[] = [];
  for (const key of ['memory_dir', 'skills_dir'] as const) {
    const name = key === 'memory_dir' ? 'memory' : 'skills';
    const inData = path.join(config.data_dir, name);
    if (config[key] !== '') {
      const configured = path.resolve(base, config[key]);
      if (samePath(configured, BUNDLED[key])) {
        relocated.push({ key, from: configured, to: inData });
        config[key] = inData;
      } else config[key] = configured;
      continue;
    }
    const legacy = path.join(base, name);
    config[key] = existsSync(legacy) && !samePath(legacy, BUNDLED[key]) ? legacy : inData;
  }
  return relocated;
}

/** True when both name the same folder (through links too). */
export function samePath(a: string, b: string): boolean {
  if (path.resolve(a) === path.resolve(b)) return true;
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}
