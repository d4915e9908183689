import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { maskEnv } from './render.js';

export interface PlannedFile {
  path: string;
  text: string;
  /** 0o600 for `.env`: secrets are readable by their owner only. */
  mode: number;
  /** Shown masked in diffs. */
  secret: boolean;
}

export type FileChange = { kind: 'new' } | { kind: 'same' } | { kind: 'changed'; diff: string };

/** What writing `file` would do; a change comes with a unified diff (secret values masked). */
export function changeOf(file: PlannedFile): FileChange {
  if (!existsSync(file.path)) return { kind: 'new' };
  const current = readFileSync(file.path, 'utf8');
  if (current === file.text) return { kind: 'same' };
  const show = file.secret ? maskEnv : (text: string) => text;
  const diff = createTwoFilesPatch(file.path, `${file.path} (new)`, show(current), show(file.text), '', '', { context: 2 });
  return { kind: 'changed', diff: diff.split('\n').slice(1).join('\n') };
}

/**
 * Writes through a temporary file and a rename, so a crash leaves the old file or the new one, never half of
 * one; the mode is set before the rename, so a secret is never readable by others, not even for a moment.
 */
export function writeAtomically(file: PlannedFile): void {
  mkdirSync(path.dirname(file.path), { recursive: true });
  // A config the person made private stays private; a secret file is never wider than 0600.
  const mode = file.secret ? file.mode : existingMode(file.path) ?? file.mode;
  const temporary = `${file.path}.init-${process.pid}`;
  try {
    writeFileSync(temporary, file.text, { mode });
    chmodSync(temporary, mode);
    renameSync(temporary, file.path);
  } finally {
    rmSync(temporary, { force: true });
  }
}

/** Narrows a secret file that exists with a wider mode (e.g. a hand-made .env); true when it changed it. */
export function narrowMode(file: PlannedFile): boolean {
  const mode = existingMode(file.path);
  if (!file.secret || mode === undefined || (mode & 0o077) === 0) return false;
  chmodSync(file.path, file.mode);
  return true;
}

function existingMode(file: string): number | undefined {
  try {
    return statSync(file).mode & 0o777;
  } catch {
    return undefined;
  }
}
