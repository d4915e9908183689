import type { AnyTool, ToolCallContext } from '../tools/types.js';
import { wrapExternal } from '../tools/external.js';
import { formatProposals, mailNote, type EmailScanner, type Proposal } from './email-scan.js';
import type { NotesServices } from './services.js';
import type { Task } from './task-files.js';
import type { ChatOrigin } from './types.js';

export function chatKey(origin: ChatOrigin): string {
  return `${origin.channel}:${origin.chatId}`;
}

/** Writes confirmed proposals as tasks, each with its source message on the line. */
export async function addProposals(services: NotesServices, scanner: EmailScanner, origin: ChatOrigin, numbers: readonly number[] | 'all', conversationId?: string): Promise<string> {
  const proposals = scanner.proposals(chatKey(origin));
  if (!proposals) return 'There is no recent scan to add from; run /email first.';
  const chosen = numbers === 'all' ? proposals.map((proposal) => proposal.number) : numbers;
  const unknown = chosen.filter((number) => !proposals.some((proposal) => proposal.number === number));
  if (unknown.length > 0) return `No proposal ${unknown.join(', ')}; the proposals are ${proposals.map((proposal) => proposal.number).join(', ') || 'all added already'}.`;
  const taken: Proposal[] = scanner.take(chatKey(origin), chosen);
  const added: Task[] = [];
  const failed: string[] = [];
  for (const proposal of taken) {
    // The note (with its link) must fit the line's 300 characters whole: the description gives way.
    const note = mailNote(proposal, services.timeZone);
    const created = await services.tasks.create(
      { description: `${proposal.description.slice(0, Math.max(20, 299 - note.length))} ${note}`, ...(proposal.due ? { due: proposal.due } : {}) },
      { ...(conversationId !== undefined ? { conversationId } : {}), chat: origin },
    );
    if (created.success) added.push(created.value);
    else failed.push(`${proposal.number}: ${created.error}`);
  }
  const lines = [`Added ${added.length} task(s) to ${added[0]?.path ?? 'tasks.md'}:`, ...added.map((task) => `• ${task.description}${task.due ? ` 📅 ${task.due}` : ''}`)];
  if (failed.length > 0) lines.push(`Not added: ${failed.join('; ')}`);
  return lines.join('\n');
}

/**
 * `email_tasks`: `scan` proposes tasks found in recent mail (outside content: wrapped, taints the turn);
 * `add` writes chosen proposals and is high-risk, so the approval gate asks the person first — mail cannot
 * get tasks written by talking the model into it.
 */
export function createEmailTasksTool(services: NotesServices, scanner: EmailScanner): AnyTool {
  return {
    name: 'email_tasks',
    effects: (params: { action?: string }) => (params.action === 'add' ? [{ kind: 'persist', target: 'memory', path: 'tasks.md' }] : []),
    aliases: ['emailTasks'],
    description:
      `Find tasks in recent mail (${scanner.account}). action "scan" lists proposals, each with its source message — show them to the person; action "add" writes the ones the person chose (numbers, or all) after they confirmed. Nothing is written by a scan.`,
    parameters: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: ['scan', 'add'] },
        numbers: { type: 'array', items: { type: 'integer', minimum: 1 }, maxItems: 50 },
        all: { type: 'boolean' },
        days: { type: 'integer', minimum: 1, maximum: 60, default: 7 },
      },
      required: ['action'],
      additionalProperties: false,
    },
    // Proposals are a model's summary of the mail, not the senders' words: they taint, and vouch for nothing.
    external: true,
    risk: (params: { action?: string }) => (params.action === 'add' ? 'high' : 'low'),
    async execute(params: { action: 'scan' | 'add'; numbers?: number[]; all?: boolean; days?: number }, ctx: ToolCallContext) {
      const origin: ChatOrigin = ctx.origin;
      if (params.action === 'add') {
        if (params.all !== true && (params.numbers ?? []).length === 0) return { success: false, output: 'Say which proposals to add: numbers, or all: true.' };
        const text = await addProposals(services, scanner, origin, params.all === true ? 'all' : (params.numbers ?? []), ctx.conversationId);
        return { success: true, output: text };
      }
      const existing = new Set(services.tasks.search({ status: 'all', limit: 10_000 }).map((task) => task.description.toLowerCase()));
      const scanned = await scanner.scan(chatKey(origin), { days: params.days ?? 7, limit: 20 }, existing, ctx.signal);
      if (!scanned.success) return { success: false, output: scanned.error };
      const text = formatProposals(scanned.value.proposals, scanned.value.scanned, scanner.account, services.timeZone);
      return { success: true, output: wrapExternal(`email:${scanner.account}`, text), externalSource: `email:${scanner.account}` };
    },
  };
}
