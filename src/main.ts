#!/usr/bin/env node
import { runCli } from './cli/run.js';

// The command line: a thin entry; everything is in cli/.
process.exitCode = await runCli(process.argv.slice(2));
