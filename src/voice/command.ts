import type { RunOutcome } from './run.js';
import { lastLine } from './run.js';

/**
 * A local engine's arguments with the paths this part chose put in: `{input}` / `{output}` anywhere inside a word
 * (`--file={input}`). When `append` names a placeholder no word mentions, its path is added as the last argument
 * (a recogniser's usual "file at the end"). Nothing else is ever added: no text, no key, no name a person chose.
 */
export function commandArgs(words: readonly string[], paths: Readonly<Record<string, string>>, append?: string): string[] {
  let used = false;
  const args = words.map((word) => word.replace(/\{(input|output)\}/g, (whole, name: string) => {
    const value = Object.hasOwn(paths, name) ? paths[name] : undefined;
    if (value === undefined) return whole;
    if (name === append) used = true;
    return value;
  }));
  if (append !== undefined && !used && Object.hasOwn(paths, append)) args.push(paths[append] ?? '');
  return args;
}

/** Why a local engine's run failed, in one line with the key to check; undefined when it succeeded. */
export function describeRunFailure(outcome: RunOutcome | unknown, program: string, key: string): string | undefined {
  if (outcome instanceof Error) {
    const code = (outcome as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return `${program} is not installed here or not on PATH (${key}.command; give its full path)`;
    if (code === 'EACCES') return `${program} cannot be run (permission denied; ${key}.command)`;
    return `${program} cannot be started (${code ?? outcome.message})`;
  }
  const run = outcome as RunOutcome;
  if (run.cancelled) return 'stopped';
  if (run.timedOut) return `${program} took longer than ${key}.timeout_s and was stopped`;
  if (run.overflow) return `${program} printed more than allowed and was stopped`;
  if (run.code !== 0) return `${program} failed (exit ${run.code ?? 'killed'})${lastLine(run.stderr) ? `: ${lastLine(run.stderr)}` : ''}`;
  return undefined;
}
