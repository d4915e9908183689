import { layeredMap } from '../lib/layered-map.js';
import type { ChatCommand, ChatCommands, Part } from '../part.js';
import { builtinTool } from '../tools/builtins.js';
import { toolGroup } from '../tools/names.js';
import type { Core } from './core.js';
import type { Made } from './parts.js';

/**
 * Step 5 of the root: what the parts asked of each other, wired before anything starts — the notes' labels and
 * prompt filter into the memory store, the skills' and task reminders' executors into the scheduler — and every
 * part's built-in tools (those `tools.enabled` allows) and chat commands registered. The first part to claim a
 * command keeps it; MCP prompts, which come and go with their servers, are looked up live after every fixed one.
 */
export function wire(core: Core, made: Made): ChatCommands {
  const memory = core.memory.store;
  memory.addOutsideLabeler(made.notes.memoryHooks.outsideLabeler);
  memory.addPromptFilter(made.notes.memoryHooks.promptFilter);
  core.tools.on('tool:after', made.notes.recordReplies, { source: 'the notes part (replies to tasks\' mail)' });
  for (const { owns, execute } of [...made.skills.executors, ...made.notes.executors]) made.scheduler.scheduler.addExecutor(owns, execute);
  // Inbound triggers run `trigger:` jobs: the scheduler reads the inbox, and hears of each new trigger at once.
  const { scheduler } = made.scheduler;
  scheduler.setTriggerFeed(made.triggers.inbox);
  // After the acknowledgement, not before it: the claims and the turn are not the sender's to wait for.
  made.triggers.inbox.onArrival(() => setImmediate(() => scheduler.dispatchTriggers()));
  // Standing intents hear each new trigger's summary: outside words, so a match only reminds the person.
  made.triggers.inbox.onArrival((item) => void made.heartbeat.intents.check(`${item.summary}\n${item.payload}`, { from: 'outside', source: item.source }));
  const parts = toolParts(core, made);
  for (const part of parts) {
    for (const tool of part.tools ?? []) {
      if (core.builtins.allows({ name: tool.name, group: toolGroup(tool), aliases: tool.aliases ?? [] })) core.tools.register(tool, { permissions: builtinTool(tool.name)?.permissions });
    }
  }
  const commands = collectCommands(parts);
  return made.mcp.prompts ? layeredMap([commands, made.mcp.prompts]) : commands;
}

/** The parts whose tools and commands are offered, in the order they claim names. */
export function toolParts(core: Core, made: Made): Part[] {
  const candidates = [
    core.memory.part, core.usage.part, made.mcp.part, made.web.part, made.images.part, made.email.part, made.calendar.part, made.sandbox.part, made.voice.part,
    made.scheduler.part, made.skills.part, made.notes.part, made.heartbeat.part,
  ];
  return candidates.filter((part): part is Part => part !== undefined);
}

/** The parts' chat commands by name; the first part to claim a name keeps it. */
function collectCommands(parts: readonly Part[]): Map<string, ChatCommand> {
  const commands = new Map<string, ChatCommand>();
  for (const part of parts) {
    for (const [name, command] of part.commands ?? []) if (!commands.has(name)) commands.set(name, command);
  }
  return commands;
}
