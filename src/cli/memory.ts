import { ZonedClock } from '../lib/clock.js';
import { MemoryHistory } from '../memory/history.js';
import { MemoryStore } from '../memory/store.js';
import { createHybridSearch } from '../memory/part.js';
import { errorMessage } from '../errors.js';
import { parseCommandArgs } from './args.js';
import { optionsOf } from './spec.js';
import type { Command, CommandContext } from './context.js';
import { ProvenanceLabels } from '../gate/labels.js';

const USAGE = `usage: familiar memory log [PATH] [--limit N]
       familiar memory diff ID
       familiar memory revert ID [--force]
       familiar memory trust [PATH]     files that hold outside content; with PATH, vouch for one (back in the prompt)
       familiar memory undo BATCH [--force]   undo a consolidation (all its files) as one change
       familiar memory reindex          rebuild the search index from the files and past conversations (and embed every entry)
`;

/** `familiar memory log|diff|revert`: the history of memory writes and putting a file back. */
export const memoryCommand: Command = async (context) => {
  let parsed;
  try {
    parsed = parseCommandArgs(context.args, optionsOf('memory'));
  } catch (error) {
    context.io.stderr.write(`familiar: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const [action, target] = parsed.positionals;
  if (action === 'trust') return trust(context, target);
  if (action === 'reindex') return reindex(context);
  if (action === 'undo') return undoBatch(context, target, parsed.values.force === true);
  if (action !== 'log' && action !== 'diff' && action !== 'revert') {
    context.io.stderr.write(USAGE);
    return 2;
  }
  const id = Number(target);
  if (action !== 'log' && (!Number.isInteger(id) || id < 1)) {
    context.io.stderr.write(`familiar: memory ${action} needs a change number from "familiar memory log"\n`);
    return 2;
  }
  const { config } = context.loadConfig();
  const db = context.openDatabase();
  const clock = new ZonedClock(config.timezone);
  try {
    const history = new MemoryHistory(new MemoryStore(config.memory_dir, db), db, context.logger('quiet'));
    const out = context.io.stdout;
    if (action === 'log') {
      const limit = parsed.values.limit === undefined ? 30 : Number(parsed.values.limit);
      const changes = history.list({ ...(target ? { path: target } : {}), limit: Number.isInteger(limit) && limit > 0 ? limit : 30 });
      if (context.options.json) {
        out.write(`${JSON.stringify(changes.map(({ previous: _previous, content: _content, ...rest }) => rest), null, 2)}\n`);
        return 0;
      }
      if (changes.length === 0) out.write('No memory changes recorded yet.\n');
      for (const change of changes) {
        const what = change.kind === 'write' ? (change.previous === null ? 'created' : change.content === null ? 'removed' : 'changed') : `${change.kind} of #${change.revertsId ?? '?'}`;
        const by = change.conversationId ? `by the assistant in ${change.conversationId}` : change.kind === 'write' ? 'outside a conversation' : '';
        const undone = `${change.undoneAt !== null ? ' (undone)' : ''}${change.batch !== null ? ` (${change.batch}; undo: familiar memory undo ${change.batch})` : ''}`;
        out.write(`#${change.id}  ${clock.format(new Date(change.createdAt))}  ${change.path}  ${what}${undone}  ${by}\n`);
      }
      return 0;
    }
    const change = history.get(id);
    if (!change) {
      context.io.stderr.write(`familiar: no memory change #${id}\n`);
      return 1;
    }
    if (action === 'diff') {
      out.write(`--- ${change.path} before #${change.id}\n+++ ${change.path} after #${change.id}\n${history.diff(change)}\n`);
      return 0;
    }
    const result = await history.revert(change, { force: parsed.values.force === true });
    if (!result.success) {
      context.io.stderr.write(`familiar: not reverted: ${result.error}\n`);
      return 1;
    }
    out.write(change.previous === null ? `Removed ${change.path} (change #${change.id} had created it).\n` : `${change.path} is back to how it was before #${change.id} (recorded as #${result.value.restored.id}).\n`);
    return 0;
  } finally {
    db.close();
  }
};

/**
 * `familiar memory trust [PATH]`: the memory files written while outside content was in play (kept out of the
 * prompt); with PATH, the person vouches for that file and it is in the prompt again.
 */
function trust(context: CommandContext, target: string | undefined): number {
  const { config } = context.loadConfig();
  const db = context.openDatabase();
  try {
    const labels = new ProvenanceLabels(db);
    const out = context.io.stdout;
    if (target === undefined) {
      const labelled = [...labels.all('memory').entries()];
      if (context.options.json) {
        out.write(`${JSON.stringify(labelled.map(([path, sources]) => ({ path, sources })), null, 2)}\n`);
        return 0;
      }
      if (labelled.length === 0) out.write('No memory file holds outside content.\n');
      for (const [path, sources] of labelled) out.write(`${path}  (from ${sources.join(', ')})\n`);
      return 0;
    }
    const resolved = new MemoryStore(config.memory_dir, db).resolve(target);
    if (!resolved.success) {
      context.io.stderr.write(`familiar: ${resolved.error}\n`);
      return 2;
    }
    const cleared = labels.clear('memory', resolved.value.relative);
    out.write(cleared ? `${resolved.value.relative} is yours again: it is back in the assistant's prompt.\n` : `${resolved.value.relative} holds no outside content.\n`);
    return 0;
  } finally {
    db.close();
  }
}

/** `familiar memory reindex`: the search index dropped and rebuilt from the files and the chats' messages; with an embedder, every entry embedded. */
async function reindex(context: CommandContext): Promise<number> {
  const { config } = context.loadConfig();
  const db = context.openDatabase();
  try {
    const store = new MemoryStore(config.memory_dir, db);
    store.searchIndex.clear();
    store.syncIndex();
    const files = store.list().length;
    const out = context.io.stdout;
    out.write(`Indexed ${store.searchIndex.count()} entries in ${files} files, and ${store.searchIndex.conversations.count()} messages of past conversations.\n`);
    const hybrid = createHybridSearch(store, { db, log: context.logger('quiet'), embeddings: config.memory.embeddings });
    if (!hybrid) return 0;
    try {
      const embedded = await hybrid.embedPending();
      out.write(`Embedded ${embedded} new entries (the others' vectors were kept); ${hybrid.prune()} unused vectors dropped.\n`);
      return 0;
    } catch (error) {
      context.io.stderr.write(`familiar: entries not embedded (search falls back to words): ${errorMessage(error)}\n`);
      return 1;
    }
  } finally {
    db.close();
  }
}

/** `familiar memory undo BATCH`: every file of one consolidation put back, or none. */
async function undoBatch(context: CommandContext, batch: string | undefined, force: boolean): Promise<number> {
  if (!batch) {
    context.io.stderr.write('familiar: memory undo needs a consolidation id from "familiar memory log" (consolidation-…)\n');
    return 2;
  }
  const { config } = context.loadConfig();
  const db = context.openDatabase();
  try {
    const history = new MemoryHistory(new MemoryStore(config.memory_dir, db), db, context.logger('quiet'));
    const result = await history.revertBatch(batch, { force });
    if (!result.success) {
      context.io.stderr.write(`familiar: not undone: ${result.error}\n`);
      return 1;
    }
    context.io.stdout.write(`Undone ${batch}: ${result.value.files.join(', ')} back as they were.\n`);
    return 0;
  } finally {
    db.close();
  }
}
