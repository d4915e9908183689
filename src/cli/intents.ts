import { IntentStore } from '../heartbeat/intent-store.js';
import { describeIntent } from '../heartbeat/intents.js';
import type { Command } from './context.js';
import { parseCommandArgs } from './args.js';
import { optionsOf } from './spec.js';

const USAGE = `usage: familiar intents [list [--json] | cancel ID]
  list         the standing intents that may still fire (every chat's)
  cancel ID    end one
Make one in a chat: /when invoice, tax return => forward it to the accountant
`;

/** `familiar intents [list|cancel ID]`: the standing intents (one SQLite file). */
export const intentsCommand: Command = async (context) => {
  let parsed;
  try {
    parsed = parseCommandArgs(context.args, optionsOf('intents'));
  } catch (error) {
    context.io.stderr.write(`familiar intents: ${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  const [action = 'list', id] = parsed.positionals;
  if (!(action === 'list' || (action === 'cancel' && id !== undefined))) {
    context.io.stderr.write(USAGE);
    return 2;
  }
  const { config } = context.loadConfig();
  const db = context.openDatabase();
  try {
    const store = new IntentStore(db);
    if (action === 'cancel') {
      const done = id !== undefined && store.cancel(id, Date.now());
      context.io[done ? 'stdout' : 'stderr'].write(done ? `Cancelled ${id}.\n` : `No active intent "${id}"; familiar intents lists them.\n`);
      return done ? 0 : 1;
    }
    const active = store.active(Date.now());
    if (context.options.json) context.io.stdout.write(`${JSON.stringify(active, null, 2)}\n`);
    else context.io.stdout.write(active.length === 0 ? 'No standing intents. Make one in a chat: /when invoice => pay it\n' : `${active.map((intent) => describeIntent(intent, config.timezone)).join('\n')}\n`);
    return 0;
  } finally {
    db.close();
  }
};
