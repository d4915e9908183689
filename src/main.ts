#!/usr/bin/env node
import { setFlagsFromString } from 'node:v8';
import { runCli } from './cli/run.js';

// A one-shot command (`ask`, `jobs list`…) made a few HTTP requests at most, yet waited about 150 ms at exit for V8
// to finish optimising undici's HTTP parser (WebAssembly) in the background. Liftoff, V8's baseline WebAssembly
// compiler, parses those few responses just as well. The daemon (`start`) keeps the optimising tier for its long life.
if (!process.argv.slice(2).includes('start')) setFlagsFromString('--liftoff-only');

// The command line: a thin entry; everything is in cli/.
// Output piped into a reader that stops early (`familiar audit | head`) ends the command quietly.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});
process.exitCode = await runCli(process.argv.slice(2));
