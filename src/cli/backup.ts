import { createBackup } from '../ops/backup.js';
import type { Command } from './context.js';
import { parseCommandArgs } from './args.js';

/** `familiar backup [--out DIR] [--tar]`: a consistent copy of the database, memory and skills; prints where. */
export const backupCommand: Command = async (context) => {
  const { values, positionals } = parseCommandArgs(context.args, { out: { type: 'string' }, tar: { type: 'boolean' } });
  if (positionals.length > 0) {
    context.io.stderr.write('usage: familiar backup [--out DIR] [--tar]\n');
    return 2;
  }
  const { config } = context.loadConfig();
  const result = await createBackup({
    config,
    ...(typeof values.out === 'string' ? { outDir: values.out } : {}),
    tarball: values.tar === true,
  });
  if (context.options.json) {
    context.io.stdout.write(`${JSON.stringify({ path: result.path, ...result.manifest }, null, 2)}\n`);
  } else {
    const rows = Object.entries(result.manifest.rows).map(([table, count]) => `${table} ${count}`).join(', ');
    const parts = [result.manifest.database ? `database (schema ${result.manifest.schemaVersion}; ${rows})` : 'no database yet', result.manifest.memory ?? 'no memory folder', result.manifest.skills ?? 'no skills folder'];
    context.io.stderr.write(`backed up ${parts.join(', ')}\n`);
    context.io.stdout.write(`${result.path}\n`);
  }
  return 0;
};
