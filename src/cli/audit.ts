import { maskJsonText } from '../lib/mask.js';
import { auditOutcome, listAudit, type AuditFilter } from '../audit/query.js';
import { parseSince } from './since.js';
import { parseCommandArgs } from './args.js';
import { optionsOf } from './spec.js';
import type { Command } from './context.js';
import { ZonedClock } from '../lib/clock.js';

const USAGE = 'usage: familiar audit [--since 2h|7d|2026-11-01] [--tool NAME] [--conversation ID] [--limit N] [--json]\n';

/** `familiar audit`: tool calls, newest first, with outcome, duration and approval decision. */
export const auditCommand: Command = async (context) => {
  let parsed;
  try {
    parsed = parseCommandArgs(context.args, optionsOf('audit'));
  } catch (error) {
    context.io.stderr.write(`familiar: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values } = parsed;
  const filter: AuditFilter = { limit: 50 };
  if (typeof values.since === 'string') {
    const since = parseSince(values.since);
    if (since === undefined) {
      context.io.stderr.write(`familiar: --since "${values.since}" is neither a duration (2h, 7d) nor a date (2026-11-01)\n`);
      return 2;
    }
    filter.since = since;
  }
  if (typeof values.tool === 'string') filter.tool = values.tool;
  if (typeof values.conversation === 'string') filter.conversationId = values.conversation;
  if (typeof values.limit === 'string') {
    const limit = Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1) {
      context.io.stderr.write('familiar: --limit must be a positive whole number\n');
      return 2;
    }
    filter.limit = limit;
  }
  const loaded = context.loadConfig();
  const db = context.openDatabase();
  const clock = new ZonedClock(loaded.config.timezone);
  try {
    const secrets = loaded.secrets;
    const entries = listAudit(db, filter);
    if (context.options.json) {
      const out = entries.map((entry) => ({
        ...entry, outcome: auditOutcome(entry), input: maskJsonText(entry.input, secrets),
        requestedInput: entry.requestedInput === null ? null : maskJsonText(entry.requestedInput, secrets),
      }));
      context.io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
      return 0;
    }
    if (entries.length === 0) {
      context.io.stdout.write('No tool calls match.\n');
      return 0;
    }
    for (const entry of entries) {
      const when = clock.format(new Date(entry.createdAt));
      const outcome = auditOutcome(entry);
      const input = maskJsonText(entry.input, secrets);
      const line = [
        `${when}  ${entry.tool}  ${outcome}  ${Math.round(entry.durationMs)} ms`,
        entry.decision ? `  approval: ${entry.decision}` : '',
        `  conversation: ${entry.conversationId ?? '-'}`,
      ].join('');
      context.io.stdout.write(`${line}\n    input: ${clip(input)}\n`);
      // A tool:before hook changed the arguments: what ran is `input`, what the model asked for is shown too.
      if (entry.requestedInput !== null) context.io.stdout.write(`    requested: ${clip(maskJsonText(entry.requestedInput, secrets))} (rewritten by a tool:before hook)\n`);
      if (outcome !== 'ok' && entry.error) context.io.stdout.write(`    error: ${entry.error.replace(/\s+/g, ' ').slice(0, 200)}\n`);
    }
    return 0;
  } finally {
    db.close();
  }
};

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
