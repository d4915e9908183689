import type { Command } from './context.js';

/** Commands are loaded on use, so `familiar start` does not parse the code of every other command. */
export const COMMANDS: ReadonlyMap<string, () => Promise<Command>> = new Map([
  ['init', async () => (await import('./init.js')).initCommand],
  ['start', async () => (await import('./start.js')).startCommand],
  ['chat', async () => (await import('./chat.js')).chatCommand],
  ['ask', async () => (await import('./ask.js')).askCommand],
  ['tools', async () => (await import('./tools.js')).toolsCommand],
  ['doctor', async () => (await import('./doctor.js')).doctorCommand],
  ['usage', async () => (await import('./usage.js')).usageCommand],
  ['memory', async () => (await import('./memory.js')).memoryCommand],
  ['audit', async () => (await import('./audit.js')).auditCommand],
  ['jobs', async () => (await import('./jobs.js')).jobsCommand],
  ['skills', async () => (await import('./skills.js')).skillsCommand],
  ['pairing', async () => (await import('./pairing.js')).pairingCommand],
  ['status', async () => (await import('./status.js')).statusCommand],
  ['console', async () => (await import('./console.js')).consoleCommand],
  ['backup', async () => (await import('./backup.js')).backupCommand],
  ['tasks', async () => (await import('./notes.js')).tasksCommand],
  ['notes', async () => (await import('./notes.js')).notesCommand],
]);

export const HELP = `familiar — a self-hosted personal assistant daemon

Usage: familiar <command> [--config FILE] [--log-level LEVEL]

  init [--yes …]        guided set-up: writes config.yaml and .env (its flags: README, Quick start)
  start                 run the daemon until SIGINT/SIGTERM
  chat                  talk to the assistant in the terminal (history kept)
  ask "text"            one turn; the reply on stdout (--conversation NAME, --new)
  tools list [--json] [--agent NAME]   every registered tool (MCP too) with its schema
  doctor                check config, LLM, folders and every configured part
  usage [--days N]      tokens per day and conversation, cost estimate (llm.prices), daily budget
  memory log|diff ID|revert ID   history of the assistant's memory writes; put a file back
  audit [--since 2h] [--tool NAME] [--conversation ID]   tool calls: outcome, duration, approval
  jobs list|add|remove ID|pause ID|resume ID|run ID|runs ID   scheduled jobs and reminders, their run log
  skills list|show ID|run ID|install SOURCE|activate ID|pause ID|resume ID|remove ID   skills in skills_dir
  pairing list|approve CODE|deny CODE   let a new chat user in (codes the bot sent them)
  status [--ready]      a running daemon's uptime, queues, jobs, usage (needs http.listen)
  console               a one-time login link to the web console (needs http.listen)
  backup [--out DIR] [--tar]  copy the database, memory and skills to a timestamped folder
  tasks list|add "text"|done REF   tasks in memory/tasks.md (and lists, plans); add understands dates and "every …"
  notes list|show NOTE|search QUERY   notes in memory/notes/ (--tag, --type)

--config defaults to $FAMILIAR_CONFIG, then ./config.yaml, then config.example.yaml's defaults.
`;
