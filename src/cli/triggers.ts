import { TriggerInbox } from '../triggers/inbox.js';
import type { Command } from './context.js';
import { parseCommandArgs } from './args.js';
import { optionsOf } from './spec.js';

const USAGE = `usage: familiar triggers list [--limit N] [--json]
  list   the newest items of the trigger inbox: when, source, summary, and the jobs that took each
`;

/** `familiar triggers list`: the trigger inbox, newest first (one SQLite file, read only). */
export const triggersCommand: Command = async (context) => {
  let parsed;
  try {
    parsed = parseCommandArgs(context.args, optionsOf('triggers'));
  } catch (error) {
    context.io.stderr.write(`familiar triggers: ${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  if ((parsed.positionals[0] ?? 'list') !== 'list') {
    context.io.stderr.write(USAGE);
    return 2;
  }
  const limit = Number(typeof parsed.values.limit === 'string' ? parsed.values.limit : 20);
  if (!Number.isInteger(limit) || limit < 1) {
    context.io.stderr.write(`familiar triggers: --limit takes a whole number of at least 1\n${USAGE}`);
    return 2;
  }
  const db = context.openDatabase();
  try {
    const items = new TriggerInbox(db).recent(limit);
    if (context.options.json) {
      context.io.stdout.write(`${JSON.stringify(items.map(({ payload: _payload, ...item }) => item), null, 2)}\n`);
      return 0;
    }
    if (items.length === 0) {
      context.io.stdout.write('The trigger inbox is empty (no webhook or watched mail has arrived).\n');
      return 0;
    }
    for (const item of items) {
      const taken = item.dispatchedAt === undefined ? 'not yet dispatched' : item.jobs.length > 0 ? `ran ${item.jobs.join(', ')}` : 'no job took it';
      context.io.stdout.write(`${new Date(item.receivedAt).toISOString()}  ${item.source}  ${item.summary}  (${taken})\n`);
    }
    return 0;
  } finally {
    db.close();
  }
};
