import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseSkill, SKILL_FILE, SKILL_ID, withStatus } from './format.js';
import { copySkillFolder, fetchHub, readIndex, skillFolderIn, sourceKind, type HubIndexEntry } from './hub.js';
import { hashSkillFolder, lockEntry, readLock, writeLock, type SkillLock } from './lock.js';
import { buildReport, formatReport } from './report.js';
import type { SkillService } from './service.js';
import type { Result } from '../lib/result.js';
import type { CallOrigin } from '../tools/types.js';

export interface InstallOptions {
  /** Where relative folder and archive paths are read from. */
  baseDir: string;
  /** The chat it was installed from (install_skill); undefined at the terminal. In a household, its results go there. */
  origin?: CallOrigin | undefined;
}

/**
 * `install_skill`: fetches the hub, checks the skill's hash against `index.json` (when it declares one)
 * and against `skills.lock` (when updating), copies it into `skills_dir` as a quarantined draft and
 * pins its hash. Nothing from the hub runs: no test, no script, no git hook, no LLM call.
 */
export async function installFromHub(service: SkillService, source: string, id: string | undefined, options: InstallOptions): Promise<Result<string>> {
  const resolved = resolveSource(service, source, id);
  if (!resolved.success) return resolved;
  const fetched = await fetchHub(resolved.value.hub, options.baseDir);
  if (!fetched.success) return fetched;
  const hub = fetched.value;
  try {
    const index = readIndex(hub.dir);
    if (!index.success) return index;
    const picked = pick(index.value, resolved.value.id, hub.source);
    if (!picked.success) return picked;
    return await installOne(service, hub.dir, hub.source, picked.value, options.origin);
  } finally {
    hub.dispose();
  }
}

/** `source` is a hub (git URL, folder, .tar.gz); a bare skill id means "this skill from tools.skills.hub". */
function resolveSource(service: SkillService, source: string, id: string | undefined): Result<{ hub: string; id: string | undefined }> {
  const trimmed = source.trim();
  const defaultHub = service.deps.config.tools.skills.hub;
  if (trimmed === '' || trimmed === 'hub' || trimmed === 'default') {
    if (!defaultHub) return { success: false, error: 'No hub given and tools.skills.hub is not set: pass source as a git URL, a folder or a .tar.gz.' };
    return { success: true, value: { hub: defaultHub, id } };
  }
  const bareId = SKILL_ID.test(trimmed) && sourceKind(trimmed) === 'dir' && !existsSync(path.resolve(trimmed));
  if (bareId) {
    if (!defaultHub) return { success: false, error: `"${trimmed}" is neither a hub nor a folder here, and tools.skills.hub is not set; pass a git URL, a folder or a .tar.gz.` };
    return { success: true, value: { hub: defaultHub, id: id ?? trimmed } };
  }
  return { success: true, value: { hub: trimmed, id } };
}

function pick(entries: HubIndexEntry[], id: string | undefined, source: string): Result<HubIndexEntry> {
  const ids = entries.map((entry) => entry.id);
  if (id !== undefined) {
    const found = entries.find((entry) => entry.id === id);
    return found ? { success: true, value: found } : { success: false, error: `The hub ${source} has no skill "${id}". It has: ${ids.join(', ') || 'nothing'}.` };
  }
  const [only] = entries;
  if (entries.length === 1 && only) return { success: true, value: only };
  return { success: false, error: `The hub ${source} has ${entries.length} skills; pass id to choose one: ${ids.join(', ') || '(none)'}.` };
}

async function installOne(service: SkillService, hubDir: string, source: string, entry: HubIndexEntry, origin: CallOrigin | undefined): Promise<Result<string>> {
  const store = service.store;
  const folder = skillFolderIn(hubDir, entry);
  if (!folder.success) return folder;
  const hashed = hashSkillFolder(folder.value);
  if (!hashed.success) return { success: false, error: `Refused "${entry.id}": ${hashed.error}.` };
  if (entry.sha256 !== undefined && entry.sha256 !== hashed.value.sha256) {
    return {
      success: false,
      error: `Refused "${entry.id}": its files do not match the hash in the hub's index.json (got ${hashed.value.sha256.slice(0, 12)}…, index says ${entry.sha256.slice(0, 12)}…). ` +
        'The skill may have been tampered with; nothing was installed.',
    };
  }
  let text: string;
  try {
    text = readFileSync(path.join(folder.value, SKILL_FILE), 'utf8');
  } catch {
    return { success: false, error: `Refused "${entry.id}": it has no ${SKILL_FILE}.` };
  }
  const parsed = parseSkill(entry.id, text, service.deps.config.timezone);
  if (!parsed.success) return { success: false, error: `Refused "${entry.id}": its ${SKILL_FILE} is not valid: ${parsed.error}.` };
  const version = entry.version ?? parsed.value.version;

  let lock: SkillLock;
  try {
    lock = readLock(store.dir);
  } catch (error) {
    return { success: false, error: `skills.lock cannot be read (${(error as Error).message}); fix or remove it first.` };
  }
  const pinned = lockEntry(lock, entry.id);
  const target = path.join(store.dir, entry.id);
  const verb = existsSync(target) ? updateVerb(service, entry.id, target, pinned, hashed.value.sha256, version) : { success: true as const, value: 'Installed' };
  if (!verb.success) return verb;
  if (verb.value === UP_TO_DATE && pinned) return { success: true, value: `Skill "${entry.id}" is already installed and up to date (version ${pinned.version}, sha256 ${pinned.sha256.slice(0, 12)}…).` };

  // Copy next to the target, force draft, then swap in: a failed copy never leaves half a skill.
  mkdirSync(store.dir, { recursive: true });
  const staging = mkdtempSync(path.join(store.dir, `.install-${entry.id}-`));
  try {
    const copy = path.join(staging, entry.id);
    copySkillFolder(folder.value, copy);
    const draft = withStatus(readFileSync(path.join(copy, SKILL_FILE), 'utf8'), 'draft');
    if (draft === undefined) return { success: false, error: `Refused "${entry.id}": its frontmatter cannot be edited.` };
    writeFileSync(path.join(copy, SKILL_FILE), draft);
    const check = hashSkillFolder(copy);
    if (!check.success || check.value.sha256 !== hashed.value.sha256) return { success: false, error: `Refused "${entry.id}": the copy does not hash like the hub's files.` };
    rmSync(target, { recursive: true, force: true });
    renameSync(copy, target);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  lock.skills[entry.id] = { source, version, sha256: hashed.value.sha256, installedAt: new Date().toISOString(), quarantined: true };
  await writeLock(store.dir, lock);
  // In a household the skill is whoever installed it (the terminal: the owner).
  service.makers.remember(entry.id, origin, service.deps.delivery);
  // A hub's instructions are outside content until the person activates the skill.
  service.deps.labels.label('skill', entry.id, [`hub:${source}`]);
  service.scheduling.sync(entry.id);

  const installed = store.get(entry.id);
  const report = installed?.success ? formatReport(buildReport(installed.value, target, hashed.value.files, service.deps.tools)) : '';
  return {
    success: true,
    value: [
      `${verb.value} skill "${entry.id}" — ${parsed.value.name} (version ${version}) from ${source}, as a quarantined draft.`,
      `Pinned in skills.lock: sha256 ${hashed.value.sha256}.`,
      'What it contains:',
      report,
      `Nothing from it has run. It runs only after the person reviews it (familiar skills show ${entry.id}) and activates it (manage_skill activate, or familiar skills activate ${entry.id}).`,
    ].join('\n'),
  };
}

const UP_TO_DATE = 'up to date';

/**
 * Whether an installed skill may be replaced by the hub's files, and the verb that says so (`Updated (1.0 → 1.1)`), or
 * UP_TO_DATE: in a household only its maker or the owner updates it; only a pinned hub skill, unchanged since install,
 * to a new version (the same version with other files looks like tampering).
 */
function updateVerb(service: SkillService, id: string, target: string, pinned: ReturnType<typeof lockEntry>, sha256: string, version: string): Result<string> {
  const allowed = service.makers.mayChange(id);
  if (!allowed.success) return allowed;
  if (!pinned) return { success: false, error: `A skill "${id}" made here already exists (${target}); delete it first or install under another hub id.` };
  const current = hashSkillFolder(target);
  if (!current.success || current.value.sha256 !== pinned.sha256) {
    return { success: false, error: `Refused to update "${id}": the installed copy no longer matches its pinned hash in skills.lock (it was changed since install). Delete it (manage_skill delete) and install again.` };
  }
  if (sha256 === pinned.sha256) return { success: true, value: UP_TO_DATE };
  if (version === pinned.version) {
    return { success: false, error: `Refused to update "${id}": the hub serves different files under the same version ${version} (sha256 ${sha256.slice(0, 12)}… ≠ pinned ${pinned.sha256.slice(0, 12)}…). A real update changes the version; this looks like tampering.` };
  }
  return { success: true, value: `Updated (${pinned.version} → ${version})` };
}
