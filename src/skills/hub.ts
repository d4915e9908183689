import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod/v3';
import { errorMessage } from '../errors.js';
import { SKILL_ID } from './format.js';
import type { Result } from '../lib/result.js';

/** A fetched hub: a local folder holding `index.json`, removed by `dispose`. */
export interface FetchedHub {
  dir: string;
  source: string;
  dispose(): void;
}


/** Built per read, not kept: zod binds its methods to every instance (see config/schema.ts). */
const indexSchema = () => z.object({
  skills: z
    .array(
      z.object({
        id: z.string().regex(SKILL_ID, 'lowercase letters, digits, - and _'),
        path: z.string().min(1).optional(),
        version: z.union([z.string(), z.number()]).transform(String).optional(),
        description: z.string().optional(),
        sha256: z.string().regex(/^[0-9a-f]{64}$/, '64 lowercase hex digits').optional(),
      }),
    )
    .max(1000),
});

export type HubIndexEntry = z.output<ReturnType<typeof indexSchema>>['skills'][number];

const GIT_TIMEOUT_MS = 120_000;
const MAX_ARCHIVE_BYTES = 50_000_000;

/** How a source string is read: a git repository, a `.tar.gz` file, or a folder. */
export function sourceKind(source: string): 'git' | 'tar' | 'dir' | undefined {
  if (/^(https?|ssh|git|file):\/\//i.test(source) || /^[\w.-]+@[\w.-]+:/.test(source)) return /\.(tar\.gz|tgz)$/i.test(source) && !/^file:/i.test(source) ? undefined : 'git';
  if (/\.(tar\.gz|tgz)$/i.test(source)) return 'tar';
  if (source.endsWith('.git')) return 'git';
  return 'dir';
}

/**
 * Fetches a hub into a temporary folder: `git clone --depth 1` (hooks off, no prompts, no secrets in
 * its environment), a `.tar.gz` extracted without links or absolute paths, or a folder used in place.
 * Nothing fetched is executed. Contract: never throws.
 */
export async function fetchHub(source: string, baseDir: string): Promise<Result<FetchedHub>> {
  const kind = sourceKind(source);
  if (kind === undefined) return { success: false, error: `"${source}" is not a hub I can read: give a git repository URL, a local folder, or a local .tar.gz file` };
  if (kind === 'dir') {
    const dir = path.resolve(baseDir, source);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) return { success: false, error: `no folder at ${dir}` };
    return { success: true, value: { dir, source: dir, dispose: () => undefined } };
  }
  const work = mkdtempSync(path.join(tmpdir(), 'familiar-hub-'));
  const dispose = () => rmSync(work, { recursive: true, force: true });
  try {
    if (kind === 'git') {
      const target = path.join(work, 'hub');
      const cloned = await gitClone(source, target);
      if (!cloned.success) {
        dispose();
        return cloned;
      }
      return { success: true, value: { dir: target, source, dispose } };
    }
    const file = path.resolve(baseDir, source);
    if (!existsSync(file)) {
      dispose();
      return { success: false, error: `no file at ${file}` };
    }
    if (statSync(file).size > MAX_ARCHIVE_BYTES) {
      dispose();
      return { success: false, error: `${file} is larger than ${MAX_ARCHIVE_BYTES} bytes` };
    }
    let refused = '';
    // tar is loaded when a skill is installed from an archive, not at start.
    const { extract } = await import('tar');
    await extract({
      file,
      cwd: work,
      // Only plain files and folders: a link inside an archive could later point a skill at host files.
      filter: (entryPath, entry) => {
        const type = 'type' in entry ? entry.type : undefined;
        const allowed = type === undefined || type === 'File' || type === 'OldFile' || type === 'Directory';
        if (!allowed) refused ||= `${entryPath} (${type})`;
        return allowed;
      },
      strict: true,
      preservePaths: false,
      noChmod: true,
    });
    if (refused) {
      dispose();
      return { success: false, error: `the archive holds an entry that is not a plain file or folder: ${refused}` };
    }
    // A tarball usually wraps everything in one top folder; the hub is where index.json is.
    const root = existsSync(path.join(work, 'index.json')) ? work : singleSubfolder(work) ?? work;
    return { success: true, value: { dir: root, source: file, dispose } };
  } catch (error) {
    dispose();
    return { success: false, error: `cannot read the hub ${source}: ${errorMessage(error)}` };
  }
}

/** Reads and validates the hub's `index.json`. */
export function readIndex(hubDir: string): Result<HubIndexEntry[]> {
  const file = path.join(hubDir, 'index.json');
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    return { success: false, error: `the hub has no readable index.json (${errorMessage(error)})` };
  }
  const parsed = indexSchema().safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { success: false, error: `index.json: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}` };
  }
  return { success: true, value: parsed.data.skills };
}

/** The folder of one indexed skill inside the hub, refusing paths that leave it. */
export function skillFolderIn(hubDir: string, entry: HubIndexEntry): Result<string> {
  const relative = entry.path ?? entry.id;
  const root = path.resolve(hubDir);
  const dir = path.resolve(root, relative);
  if (path.isAbsolute(relative) || !(dir === root || dir.startsWith(root + path.sep))) return { success: false, error: `index.json: the path of "${entry.id}" leaves the hub` };
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return { success: false, error: `index.json lists "${entry.id}" at ${relative}, but there is no such folder in the hub` };
  return { success: true, value: dir };
}

/** Copies a verified skill folder into place (plain files only; the caller has checked the listing). */
export function copySkillFolder(from: string, to: string): void {
  rmSync(to, { recursive: true, force: true });
  cpSync(from, to, { recursive: true, dereference: false, filter: (source) => path.basename(source) !== '.git' });
}

function singleSubfolder(dir: string): string | undefined {
  const entries = readdirSync(dir);
  if (entries.length !== 1) return undefined;
  const only = path.join(dir, entries[0] ?? '');
  return statSync(only).isDirectory() ? only : undefined;
}

/** `git clone --depth 1` with hooks disabled, no terminal prompts and an environment without secrets. */
async function gitClone(url: string, target: string): Promise<Result<void>> {
  // Loaded here, on the first install: child processes are no part of a daemon's start.
  const { spawn } = await import('node:child_process');
  const args = [
    '-c', 'core.hooksPath=/dev/null',
    '-c', 'protocol.ext.allow=never',
    '-c', 'advice.detachedHead=false',
    'clone', '--depth', '1', '--quiet', '--no-recurse-submodules', '--', url, target,
  ];
  // Only what git needs: the daemon's environment holds API keys and tokens.
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir(), GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', LANG: 'C' };
  return new Promise((resolve) => {
    let stderr = '';
    const child = spawn('git', args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), GIT_TIMEOUT_MS);
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4000) stderr += chunk.toString('utf8');
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ success: false, error: `git could not be started (${errorMessage(error)}); install git to use git hubs` });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve({ success: true, value: undefined });
      else resolve({ success: false, error: `git clone of ${url} failed (${signal ? `killed: ${signal}` : `exit ${code}`}): ${stderr.trim().split('\n').slice(-2).join(' ') || 'no message'}` });
    });
  });
}
