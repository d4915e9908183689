import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../lib/atomic-write.js';
import { SKILL_FILE, withoutStatus } from './format.js';
import { MAX_SKILL_BYTES, MAX_SKILL_FILES } from './store.js';
import { compareCodePoints } from '../lib/compare.js';
import type { Result } from '../lib/result.js';

export const LOCK_FILE = 'skills.lock';

/** What `skills.lock` remembers of a skill installed from a hub. */
export interface LockEntry {
  source: string;
  version: string;
  /** sha256 over the folder's files (see `hashSkillFolder`). */
  sha256: string;
  installedAt: string;
  /** True until the person activates it: a quarantined skill never runs, not even by id. */
  quarantined: boolean;
}

export interface SkillLock {
  version: 1;
  skills: Record<string, LockEntry>;
}

/**
 * The regular files of a skill folder, relative and sorted. A link, a device or anything else that is
 * not a plain file or folder makes the folder unacceptable: a link could point anywhere on the host.
 */
export function listSkillFiles(dir: string): Result<{ files: string[]; bytes: number }> {
  const files: string[] = [];
  let bytes = 0;
  const walk = (relative: string): string | undefined => {
    for (const entry of readdirSync(path.join(dir, relative), { withFileTypes: true })) {
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name === '.git') continue;
        const problem = walk(child);
        if (problem) return problem;
      } else if (entry.isFile()) {
        files.push(child);
        bytes += lstatSync(path.join(dir, child)).size;
        if (files.length > MAX_SKILL_FILES) return `more than ${MAX_SKILL_FILES} files`;
        if (bytes > MAX_SKILL_BYTES) return `more than ${MAX_SKILL_BYTES} bytes`;
      } else {
        return `${child} is not a regular file or folder (links are not allowed in a skill)`;
      }
    }
    return undefined;
  };
  try {
    const problem = walk('');
    if (problem) return { success: false, error: problem };
  } catch (error) {
    return { success: false, error: (error as Error).message };
  }
  return { success: true, value: { files: files.sort(), bytes } };
}

/**
 * The content hash of a skill folder: sha256 over, for each file in sorted order, its relative path,
 * a NUL, the sha256 of its bytes and a newline. Renaming, adding, removing or changing any file changes it,
 * except the `status:` line of SKILL.md's frontmatter: that is the person's on/off switch, not content.
 */
export function hashSkillFolder(dir: string): Result<{ sha256: string; files: string[] }> {
  const listed = listSkillFiles(dir);
  if (!listed.success) return listed;
  const hash = createHash('sha256');
  for (const file of listed.value.files) {
    const bytes = readFileSync(path.join(dir, file));
    const content = createHash('sha256').update(file === SKILL_FILE ? withoutStatus(bytes.toString('utf8')) : bytes).digest('hex');
    hash.update(`${file}\u0000${content}\n`);
  }
  return { success: true, value: { sha256: hash.digest('hex'), files: listed.value.files } };
}

export function readLock(skillsDir: string): SkillLock {
  const file = path.join(skillsDir, LOCK_FILE);
  if (!existsSync(file)) return { version: 1, skills: {} };
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<SkillLock>;
  const skills: Record<string, LockEntry> = {};
  for (const [id, entry] of Object.entries(parsed.skills ?? {})) {
    if (entry && typeof entry.sha256 === 'string') skills[id] = { ...entry, quarantined: entry.quarantined !== false };
  }
  return { version: 1, skills };
}

export async function writeLock(skillsDir: string, lock: SkillLock): Promise<void> {
  const sorted = Object.fromEntries(Object.entries(lock.skills).sort(([a], [b]) => compareCodePoints(a, b)));
  await writeFileAtomic(path.join(skillsDir, LOCK_FILE), `${JSON.stringify({ version: 1, skills: sorted }, null, 2)}\n`);
}

export function lockEntry(lock: SkillLock, id: string): LockEntry | undefined {
  return Object.hasOwn(lock.skills, id) ? lock.skills[id] : undefined;
}

/** Why a skill may not run; `tampered`: its files no longer hash to the pinned value (a repin can accept them). */
export interface PinRefusal {
  reason: string;
  tampered: boolean;
}

/**
 * Whether a hub skill may run: its folder must still hash to the pinned value, and it must have been
 * activated once. Skills made locally (no lock entry) always pass. Contract: never throws.
 */
export function checkPinned(skillsDir: string, id: string): Result<LockEntry | undefined, PinRefusal> {
  let lock: SkillLock;
  try {
    lock = readLock(skillsDir);
  } catch (error) {
    return { success: false, error: { tampered: false, reason: `${LOCK_FILE} cannot be read (${(error as Error).message}); fix or remove it` } };
  }
  const entry = lockEntry(lock, id);
  if (!entry) return { success: true, value: undefined };
  const hashed = hashSkillFolder(path.join(skillsDir, id));
  if (!hashed.success) return { success: false, error: { tampered: true, reason: `skill "${id}" cannot be verified: ${hashed.error}` } };
  if (hashed.value.sha256 !== entry.sha256) {
    return {
      success: false,
      error: {
        tampered: true,
        reason: `skill "${id}" was installed from ${entry.source} but its files changed since (sha256 ${hashed.value.sha256.slice(0, 12)}… ≠ pinned ${entry.sha256.slice(0, 12)}…); ` +
          'it is refused. Reinstall it from its hub, or, if you changed it yourself, run `familiar skills activate ' + id + ' --repin`',
      },
    };
  }
  return { success: true, value: entry };
}
