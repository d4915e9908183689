import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../errors.js';
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
 * - tools_dir: as configured, else `<data_dir>/tools`. Code there runs with the daemon's rights, so it may not share a
 *   folder with anything the assistant can write (memory, skills, the sandbox's workspaces): ConfigError otherwise.
 * The folders are not created here; config/seed-folders.ts fills a new one from the bundled seeds.
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
  config.tools_dir = config.tools_dir === '' ? path.join(config.data_dir, 'tools') : path.resolve(base, config.tools_dir);
  checkToolsDir(config);
  return relocated;
}

/**
 * The assistant writes memory, skills and workspace files; a module it could write (or a helper a module imports)
 * would run with the daemon's rights. So tools_dir is neither inside nor around any of them.
 */
function checkToolsDir(config: Config): void {
  const writable = [
    ['memory_dir', config.memory_dir],
    ['skills_dir', config.skills_dir],
    ['the sandbox workspaces', path.join(config.data_dir, 'workspaces')],
  ] as const;
  for (const [name, dir] of writable) {
    if (within(config.tools_dir, dir) || within(dir, config.tools_dir)) {
      throw new ConfigError('tools_dir', `${config.tools_dir} overlaps ${name} (${dir}), which the assistant can write; code there would run with the daemon's rights — use a folder of its own (default: <data_dir>/tools)`);
    }
  }
}

/** True when `child` is `parent` or inside it (through links too, where the folders exist). */
export function within(child: string, parent: string): boolean {
  const inside = (a: string, b: string) => {
    const relative = path.relative(b, a);
    return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
  };
  return inside(path.resolve(child), path.resolve(parent)) || inside(real(child), real(parent));
}

/** The real path of a folder, or of its nearest existing parent with the rest appended. */
function real(dir: string): string {
  const resolved = path.resolve(dir);
  try {
    return realpathSync(resolved);
  } catch {
    const parent = path.dirname(resolved);
    return parent === resolved ? resolved : path.join(real(parent), path.basename(resolved));
  }
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
