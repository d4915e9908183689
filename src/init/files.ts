import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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
  const temporary = `${file.path}.init-${process.pid}`;
  try {
    writeFileSync(temporary, file.text, { mode: file.mode });
    chmodSync(temporary, file.mode);
    renameSync(temporary, file.path);
  } finally {
    rmSync(temporary, { force: true });
  }
}
