import { createBackup } from '../ops/backup.js';
import type { Command } from './context.js';
import { parseCommandArgs } from './args.js';
import { optionsOf } from './spec.js';

/** `familiar backup [--out DIR] [--tar]`: a consistent copy of everything that is the person's; prints where. */
export const backupCommand: Command = async (context) => {
  const { values, positionals } = parseCommandArgs(context.args, optionsOf('backup'));
  if (positionals.length > 0) {
    context.io.stderr.write('usage: familiar backup [--out DIR] [--tar]\n');
    return 2;
  }
  const loaded = context.loadConfig();
  const result = await createBackup({
    config: loaded.config,
    // The example's defaults are Familiar's, not the person's: only a real config file is theirs to keep.
    ...(loaded.source === 'file' ? { configFile: loaded.path } : {}),
    ...(loaded.envFile !== undefined ? { envFile: loaded.envFile } : {}),
    ...(typeof values.out === 'string' ? { outDir: values.out } : {}),
    tarball: values.tar === true,
  });
  if (context.options.json) {
    context.io.stdout.write(`${JSON.stringify({ path: result.path, ...result.manifest }, null, 2)}\n`);
  } else {
    const rows = Object.entries(result.manifest.rows).map(([table, count]) => `${table} ${count}`).join(', ');
    const { manifest } = result;
    const parts = [
      manifest.database ? `database (schema ${manifest.schemaVersion}; ${rows})` : 'no database yet',
      manifest.memory ?? 'no memory folder', manifest.skills ?? 'no skills folder',
      ...[manifest.tools ?? null, manifest.workspaces, manifest.config, manifest.env].filter((part) => part !== null),
    ];
    context.io.stderr.write(`backed up ${parts.join(', ')}\n`);
    context.io.stdout.write(`${result.path}\n`);
  }
  return 0;
};
