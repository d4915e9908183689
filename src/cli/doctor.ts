import { accessSync, constants, existsSync } from 'node:fs';
import path from 'node:path';
import type { DoctorLine } from '../part.js';
import { AppError, errorMessage } from '../errors.js';
import { probeLlm } from '../llm/probe.js';
import { readinessChecks } from '../ops/readiness.js';
import { parseCommandArgs } from './args.js';
import type { Command } from './context.js';
import { optionsOf } from './spec.js';

const MARK: Record<DoctorLine['status'], string> = { ok: '✓', fail: '✗', warn: '!', skip: '–' };

/**
 * `familiar doctor`: one line per check, ✓ or ✗ with what to do. Exit 1 when any check failed. With --fix, what is
 * safe to fix is fixed first (ops/doctor-fix.ts), one `+` line each, so the checks then show the result.
 */
export const doctorCommand: Command = async (context) => {
  const { stdout } = context.io;
  let fix: boolean;
  try {
    const parsed = parseCommandArgs(context.args, optionsOf('doctor'));
    if (parsed.positionals.length > 0) throw new Error(`unexpected "${parsed.positionals.join(' ')}"`);
    fix = parsed.values.fix === true;
  } catch (error) {
    context.io.stderr.write(`familiar doctor: ${(error as Error).message}\nusage: familiar doctor [--fix]\n`);
    return 2;
  }
  const lines: DoctorLine[] = [];
  const print = (line: DoctorLine) => {
    lines.push(line);
    const detail = line.detail ? `: ${line.detail}` : '';
    const fix = line.fix && line.status !== 'ok' ? ` — ${line.fix}` : '';
    stdout.write(`${MARK[line.status]} ${line.label}${detail}${fix}\n`);
  };
  const loaded = context.loadConfig();
  print({ status: 'ok', label: `config: ${loaded.path}`, ...(loaded.envFile !== undefined ? { detail: `with ${loaded.envFile}` } : {}) });
  const config = loaded.config;
  if (fix) {
    const { fixWhatIsSafe } = await import('../ops/doctor-fix.js');
    const fixes = await fixWhatIsSafe(loaded, { progress: context.io.stderr });
    for (const line of fixes) {
      if (line.status === 'fixed') stdout.write(`+ ${line.text}\n`);
      else print({ status: 'fail', label: 'could not fix', detail: line.text });
    }
    if (fixes.length === 0) stdout.write('+ nothing to fix\n');
  }
  // The LLM's own line comes from the probe below, which also reaches the server.
  for (const line of readinessChecks(loaded).filter((check) => check.label !== 'llm')) print(line);
  for (const [key, dir] of [['data_dir', config.data_dir], ['memory_dir', config.memory_dir], ['skills_dir', config.skills_dir]] as const) {
    print(checkWritable(key, dir));
  }
  let app;
  try {
    app = await context.daemon('daemon', 'quiet');
  } catch (error) {
    // A database that cannot be opened (newer schema, not a database) is a failed check, not a crash: the
    // other checks that do not need it still run.
    const tooNew = error instanceof AppError && error.code === 'DB_TOO_NEW';
    print({
      status: 'fail',
      label: 'database',
      detail: errorMessage(error),
      fix: tooNew ? 'upgrade Familiar, or restore a backup made by this version' : 'restore from a backup (familiar backup) or move data/familiar.db aside',
    });
    print(await probeLlm(config.llm));
    print({ status: 'skip', label: 'other parts', detail: 'not checked: the daemon cannot start without its database' });
    return summary(stdout, lines);
  }
  try {
    const integrity = app.db.pragma('quick_check', { simple: true });
    print(integrity === 'ok'
      ? { status: 'ok', label: 'database: integrity ok' }
      : { status: 'fail', label: 'database', detail: String(integrity), fix: 'restore from a backup (familiar backup) or move data/familiar.db aside' });
    print(await probeLlm(config.llm));
    for (const part of app.parts) {
      if (!part.doctor) continue;
      try {
        for (const line of await part.doctor()) print(line);
      } catch (error) {
        print({ status: 'fail', label: part.name, detail: String(error) });
      }
    }
  } finally {
    await app.close(0);
  }
  return summary(stdout, lines);
};

/** "All checks passed" only when nothing needs the person's attention; warnings are counted, not hidden. */
function summary(stdout: NodeJS.WritableStream, lines: readonly DoctorLine[]): number {
  const failed = lines.filter((line) => line.status === 'fail').length;
  const warned = lines.filter((line) => line.status === 'warn').length;
  const warnings = `${warned} warning${warned === 1 ? '' : 's'} (!)`;
  if (failed > 0) stdout.write(`${failed} check(s) failed.${warned > 0 ? ` And ${warnings}.` : ''}\n`);
  else stdout.write(warned > 0 ? `No check failed; ${warnings} above.\n` : 'All checks passed.\n');
  return failed === 0 ? 0 : 1;
}

function checkWritable(key: string, dir: string): DoctorLine {
  // A folder that does not exist yet is not made here: memory and skills are filled from Familiar's starter
  // copies on first use, which only happens for a folder that does not exist.
  let existing = dir;
  while (!existsSync(existing) && path.dirname(existing) !== existing) existing = path.dirname(existing);
  try {
    accessSync(existing, constants.W_OK);
    return { status: 'ok', label: `${key}: ${dir} ${existing === dir ? 'writable' : 'will be created on first use'}` };
  } catch (error) {
    return { status: 'fail', label: `${key}: ${dir}`, detail: `not writable (${(error as NodeJS.ErrnoException).code ?? 'error'})`, fix: `create it or fix its permissions, or set ${key}` };
  }
}
