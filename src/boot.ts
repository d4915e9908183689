import module from 'node:module';
import { setFlagsFromString } from 'node:v8';
import { extractGlobals } from './cli/globals.js';
import { codeCacheDir, loadBundle } from './lib/code-cache.js';
import { tuneHeapForDaemon } from './ops/heap.js';

/** A bundle scripts/bundle.mjs wrote: its file and the hash of its content. */
export interface BundleFile {
  file: string;
  build: string;
}

type StartEntry = typeof import('./main-start.js');
type CommandLineEntry = typeof import('./main.js');

/**
 * The `familiar` executable as built (scripts/bundle.mjs folds this into dist/main.js): a plain `familiar start` runs
 * the daemon's bundle, anything else the command line's, each through the code cache (src/lib/code-cache.ts). The V8
 * flags a run needs are set here, before any of its code compiles, since a code cache is taken only under the flags it
 * was made with: the daemon's heap tuning (src/ops/heap.ts), and Liftoff alone for a one-shot command (a few HTTP
 * responses parsed by undici's WebAssembly parser do not wait 150 ms at exit for V8 to optimise it).
 */
export async function boot(bundles: { start: BundleFile; commandLine: BundleFile }, argv: string[] = process.argv.slice(2)): Promise<void> {
  // Node 22.1+ keeps the compiled code of what is loaded from outside the bundles (packages) between runs.
  (module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
  const globals = extractGlobals(argv);
  const dir = codeCacheDir();
  if (!('error' in globals) && globals.rest.length === 1 && globals.rest[0] === 'start') {
    const flags = tuneHeapForDaemon() ? 'daemon' : 'defaults';
    const bundle = loadBundle<StartEntry>(bundles.start.file, dir ? { dir, name: 'start', build: bundles.start.build, flags } : undefined);
    // Node makes process.stdin and process.stdout on first use (a stream, and the modules behind it): the daemon logs to
    // stderr and reads neither, so they are not made for it.
    const io = {
      get stdout() {
        return process.stdout;
      },
      stderr: process.stderr,
      get stdin() {
        return process.stdin;
      },
      ready: () => void bundle.save(),
    };
    process.exitCode = await bundle.exports.main(globals, io);
    return;
  }
  setFlagsFromString('--liftoff-only');
  // Each command keeps a cache of its own: `ask` and `tools list` run different functions.
  const word = 'error' in globals ? undefined : globals.rest[0];
  const name = `cli-${word && /^[a-z][a-z-]{0,31}$/.test(word) ? word : 'other'}`;
  const bundle = loadBundle<CommandLineEntry>(bundles.commandLine.file, dir ? { dir, name, build: bundles.commandLine.build, flags: 'liftoff' } : undefined);
  // Written only for a run that succeeded: an unknown command (`familiar frobnicate`) leaves no cache behind.
  process.once('exit', (code) => {
    if (code === 0) bundle.save();
  });
  process.exitCode = await bundle.exports.main(argv);
}
