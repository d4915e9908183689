import { askCommand } from './ask.js';
import { chatCommand } from './chat.js';
import type { Command } from './context.js';
import { doctorCommand } from './doctor.js';
import { startCommand } from './start.js';
import { toolsCommand } from './tools.js';

export const COMMANDS: ReadonlyMap<string, Command> = new Map([
  ['start', startCommand],
  ['chat', chatCommand],
  ['ask', askCommand],
  ['tools', toolsCommand],
  ['doctor', doctorCommand],
]);

export const HELP = `familiar — a self-hosted personal assistant daemon

Usage: familiar <command> [--config FILE] [--log-level LEVEL]

  start                 run the daemon until SIGINT/SIGTERM
  chat                  talk to the assistant in the terminal (history kept)
  ask "text"            one turn; the reply on stdout (--conversation NAME, --new)
  tools list [--json]   every registered tool with its schema
  doctor                check config, LLM, folders and every configured part

--config defaults to $FAMILIAR_CONFIG, then ./config.yaml, then config.example.yaml's defaults.
`;
