import { runCli } from './cli/run.js';

// The command line's entry, bundled by scripts/bundle.mjs into dist/bundle/main.cjs, which the `familiar` executable
// (src/boot.ts) runs for anything but a plain `familiar start`: a thin entry; everything is in cli/.
export async function main(argv: string[]): Promise<number> {
  // Output piped into a reader that stops early (`familiar audit | head`) ends the command quietly.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  return runCli(argv);
}
