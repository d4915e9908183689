import { completionScript, SHELLS, type Shell } from './completion-scripts.js';
import { parseCommandArgs } from './args.js';
import type { Command } from './context.js';
import { optionsOf } from './spec.js';

/** `familiar completion bash|zsh|fish`: the script on stdout (how to load it: `familiar help completion`). */
export const completionCommand: Command = (context) => {
  const [shell, ...rest] = parseCommandArgs(context.args, optionsOf('completion')).positionals;
  if (shell === undefined || !SHELLS.includes(shell as Shell) || rest.length > 0) {
    context.io.stderr.write(`familiar completion: ${shell === undefined ? 'name a shell' : `no completion for "${shell}"`}: bash, zsh or fish (familiar help completion says how to load it)\n`);
    return Promise.resolve(2);
  }
  context.io.stdout.write(completionScript(shell as Shell));
  return Promise.resolve(0);
};
