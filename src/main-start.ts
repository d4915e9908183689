import type { CommandIo } from './cli/context.js';
import type { Globals } from './cli/globals.js';
import { runLoadedCommand } from './cli/outcome.js';
import { startCommand } from './cli/start.js';

// `familiar start` by an entry of its own: scripts/bundle.mjs bundles the daemon from here into
// dist/bundle-start/main.cjs, which holds only what a start loads and the parts it loads when configured. The
// `familiar` executable (src/boot.ts) runs it for a plain start; anything else (`familiar start --help`) is the
// command line's.
export async function main(globals: Globals, io: CommandIo): Promise<number> {
  return runLoadedCommand(async () => startCommand, globals, io);
}
