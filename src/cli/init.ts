import { configFilePath } from '../config/load.js';
import { INIT_USAGE, parseSetupFlags } from '../init/flags.js';
import { runSetup } from '../init/setup.js';
import { createSetupUi } from '../init/ui.js';
import type { Command } from './context.js';

/** `familiar init`: the guided set-up (src/init/). Interactive on a terminal; `--yes` with flags for scripts. */
export const initCommand: Command = async (context) => {
  const flags = parseSetupFlags(context.args);
  if (!flags.success) {
    context.io.stderr.write(`familiar init: ${flags.error}\n${INIT_USAGE}`);
    return 2;
  }
  const terminal = (context.io.stdin as NodeJS.ReadStream).isTTY === true;
  if (!flags.value.yes && !terminal) {
    context.io.stderr.write(`familiar init: asks questions on a terminal; from a script, pass --yes with flags\n${INIT_USAGE}`);
    return 2;
  }
  const ui = createSetupUi({ input: context.io.stdin, output: context.io.stdout, interactive: !flags.value.yes });
  // Not loadConfig: the set-up must work with no config, or a broken one it is about to replace.
  return runSetup({ configFile: configFilePath({ configPath: context.options.config }).file, flags: flags.value, ui });
};
