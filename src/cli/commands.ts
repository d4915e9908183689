import type { Command } from './context.js';

/**
 * Each command's code, loaded on use, so `familiar start` does not parse the code of every other command. What the
 * commands are (names, options, help) is `spec.ts`.
 */
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
  ['calendar', async () => (await import('./calendar.js')).calendarCommand],
  ['heartbeat', async () => (await import('./heartbeat.js')).heartbeatCommand],
  ['triggers', async () => (await import('./triggers.js')).triggersCommand],
  ['intents', async () => (await import('./intents.js')).intentsCommand],
  ['skills', async () => (await import('./skills.js')).skillsCommand],
  ['pairing', async () => (await import('./pairing.js')).pairingCommand],
  ['people', async () => (await import('./people.js')).peopleCommand],
  ['status', async () => (await import('./status.js')).statusCommand],
  ['console', async () => (await import('./console.js')).consoleCommand],
  ['backup', async () => (await import('./backup.js')).backupCommand],
  ['restore', async () => (await import('./restore.js')).restoreCommand],
  ['tasks', async () => (await import('./notes.js')).tasksCommand],
  ['notes', async () => (await import('./notes.js')).notesCommand],
  ['logs', async () => (await import('./logs.js')).logsCommand],
  ['service', async () => (await import('./service.js')).serviceCommand],
  ['config', async () => (await import('./config.js')).configCommand],
  ['completion', async () => (await import('./completion.js')).completionCommand],
]);
