#!/usr/bin/env node
import { extractGlobals, runLoadedCommand } from './cli/outcome.js';
import { startCommand } from './cli/start.js';

// `familiar start` by an entry of its own: scripts/bundle.mjs bundles the daemon from here into dist/bundle-start/,
// where what a start loads sits in a few large chunks. In the command line's bundle every command is an entry, and the
// modules they share are cut into a chunk per set of commands that use them: a start read 72 files there, 31 here.
// Anything but a plain start (`familiar start --help`, a global option without its value) is the whole command line's.
const argv = process.argv.slice(2);
const globals = extractGlobals(argv);
if (!('error' in globals) && globals.rest.length === 1 && globals.rest[0] === 'start') {
  process.exitCode = await runLoadedCommand(async () => startCommand, globals, { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin });
} else {
  // A specifier the bundler cannot follow, so the command line stays out of this bundle: bundled, the command line's
  // bundle beside it; unbundled (tsc's dist/), the `familiar` executable.
  const commandLine = import.meta.url.includes('/bundle-start/') ? '../bundle/main.mjs' : './main.js';
  await import(commandLine);
}
