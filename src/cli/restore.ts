import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configFilePath } from '../config/load.js';
import { acquireDaemonLock } from '../ops/lock.js';
import { openBackup, restoreConfigFiles, restoreData } from '../ops/restore.js';
import { parseCommandArgs } from './args.js';
import type { Command } from './context.js';
import { optionsOf } from './spec.js';

const USAGE = 'usage: familiar restore <backup folder or .tar.gz> [--force]\n';

/**
 * `familiar restore BACKUP`: the other half of `familiar backup`, for a new machine or after a loss. The config and
 * `.env` come first (where none exists yet), so the data lands where that config keeps it; the daemon must be
 * stopped (its lock is taken for the whole restore). Data already there is refused without --force, and moved aside
 * with it, never deleted.
 */
export const restoreCommand: Command = async (context) => {
  const { stdout, stderr } = context.io;
  let parsed;
  try {
    parsed = parseCommandArgs(context.args, optionsOf('restore'));
  } catch (error) {
    stderr.write(`familiar restore: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const [source, ...rest] = parsed.positionals;
  if (source === undefined || rest.length > 0) {
    stderr.write(`familiar restore: ${source === undefined ? 'name the backup to restore' : `unexpected "${rest.join(' ')}"`}\n${USAGE}`);
    return 2;
  }
  const configFile = configFilePath({ configPath: context.options.config }).file;
  const backup = await openBackup(path.resolve(source), os.tmpdir());
  try {
    const said = restoreConfigFiles(backup, configFile);
    // Read only now: on a new machine the config was just restored.
    const { config } = context.loadConfig();
    mkdirSync(config.data_dir, { recursive: true, mode: 0o700 });
    const lock = acquireDaemonLock(config.data_dir);
    try {
      const result = restoreData(backup, config, { replace: parsed.values.force === true });
      for (const line of [...said, ...result.restored.map((part) => `restored ${part}`)]) stdout.write(`${line}\n`);
      if (result.replacedInto) stdout.write(`what was there before is in ${result.replacedInto}\n`);
      stdout.write(`Backup of ${backup.manifest.createdAt} restored. Start the daemon: familiar start\n`);
    } finally {
      lock.release();
    }
  } finally {
    backup.close();
  }
  return 0;
};
