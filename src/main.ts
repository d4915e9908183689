#!/usr/bin/env node
import { runCli } from './cli/run.js';

// The command line: a thin entry; everything is in cli/.
// Output piped into a reader that stops early (`familiar audit | head`) ends the command quietly.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});
process.exitCode = await runCli(process.argv.slice(2));
