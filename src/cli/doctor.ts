import { accessSync, constants, mkdirSync } from 'node:fs';
import type { DoctorLine } from '../part.js';
import { AppError, errorMessage } from '../errors.js';
import { probeLlm } from '../llm/probe.js';
import type { Command } from './context.js';

const MARK: Record<DoctorLine['status'], string> = { ok: '✓', fail: '✗', warn: '!', skip: '–' };

/** `familiar doctor`: one line per check, ✓ or ✗ with what to do. Exit 1 when any check failed. */
export const doctorCommand: Command = async (context) => {
  const { stdout } = context.io;
  const lines: DoctorLine[] = [];
  const print = (line: DoctorLine) => {
    lines.push(line);
    const detail = line.detail ? `: ${line.detail}` : '';
    const fix = line.fix && line.status !== 'ok' ? ` — ${line.fix}` : '';
    stdout.write(`${MARK[line.status]} ${line.label}${detail}${fix}\n`);
  };
  const loaded = context.loadConfig();
  print({
    status: 'ok',
    label: `config: ${loaded.path}`,
    ...(loaded.source === 'example' ? { detail: 'no config.yaml; using the example defaults' } : {}),
  });
  const config = loaded.config;
  for (const [key, dir] of [['data_dir', config.data_dir], ['memory_dir', config.memory_dir], ['skills_dir', config.skills_dir]] as const) {
    print(checkWritable(key, dir));
  }
  let app;
  try {
    app = await context.daemon('daemon');
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

function summary(stdout: NodeJS.WritableStream, lines: readonly DoctorLine[]): number {
  const failed = lines.filter((line) => line.status === 'fail').length;
  stdout.write(failed === 0 ? 'All checks passed.\n' : `${failed} check(s) failed.\n`);
  return failed === 0 ? 0 : 1;
}

function checkWritable(key: string, dir: string): DoctorLine {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
    return { status: 'ok', label: `${key}: ${dir} writable` };
  } catch (error) {
    return { status: 'fail', label: `${key}: ${dir}`, detail: `not writable (${(error as NodeJS.ErrnoException).code ?? 'error'})`, fix: `create it or fix its permissions, or set ${key}` };
  }
}
