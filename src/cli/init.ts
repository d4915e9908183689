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
  const configFile = configFilePath({ configPath: context.options.config }).file;
  return runSetup({
    configFile, flags: flags.value, ui,
    // The next steps are shown the way this command was typed: a checkout without `npm link` runs it through npm.
    invocation: process.env.npm_lifecycle_event === 'familiar' ? 'npm run familiar --' : 'familiar',
    // Not loadConfig: the set-up must work with no config, or a broken one it is about to replace; the service
    // command then reads the config just written.
    installService: async () => {
      const { serviceCommand } = await import('./service.js');
      return serviceCommand({ ...context, args: ['install'], options: { ...context.options, config: configFile } });
    },
  });
};
