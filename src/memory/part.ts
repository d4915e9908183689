import type { Database } from '../db/database.js';
import type { Logger } from '../log.js';
import { seedFolder } from '../config/seed-folders.js';
import type { ChatCommand, Part } from '../part.js';
import { currentTaint } from '../lib/call-scope.js';
import type { ProvenanceLabels } from '../gate/labels.js';
import { MemoryHistory } from './history.js';
import { MemoryStore } from './store.js';
import { createMemoryTools } from './tools.js';

export interface MemoryPart {
  store: MemoryStore;
  history: MemoryHistory;
  part: Part;
}

/**
 * Long-term memory: the folder of Markdown files, the memory tools, the history of the assistant's writes with
 * the hand-edit guard, and `/memory` and `/undo`.
 */
export function createMemoryPart(deps: { memoryDir: string; db: Database; log: Logger; labels: ProvenanceLabels }): MemoryPart {
  // The starter memory (the package's memory/) is copied in on first use: the person's files are theirs.
  seedFolder('memory', deps.memoryDir, deps.log);
  const store = new MemoryStore(deps.memoryDir, deps.db);
  const history = new MemoryHistory(store, deps.db, deps.log.child({ component: 'memory-history' }));
  history.attach();
  const { labels } = deps;
  // A file written while outside content is in play carries its sources: kept out of the prompt, read as outside
  // content, until the person clears the label (/trust, familiar memory trust). A removed file loses its label.
  store.onWrite((event) => {
    if (event.content === null) {
      labels.clear('memory', event.path);
      return;
    }
    const taint = currentTaint();
    if (taint.length > 0) labels.label('memory', event.path, taint);
  });
  store.addOutsideLabeler((path) => {
    const sources = labels.get('memory', path);
    return sources ? `memory:${path} (written while reading ${sources.join(', ')})` : undefined;
  });
  // The prompt's memory section is rebuilt when the labelled files change (few: what outside content touched).
  store.addPromptFilter((path) => labels.get('memory', path) === undefined, () => [...labels.all('memory').keys()].join('\n'));
  // Reads the model made: an overwrite later in the conversation is checked against what it saw.
  const tools = createMemoryTools({
    onRead(conversationId, requested, content) {
      const resolved = store.resolve(requested);
      if (resolved.success) history.noteRead(conversationId, resolved.relative, content);
    },
  });
  const commands = new Map<string, ChatCommand>([
    ['memory', {
      description: 'list my memory files',
      async run() {
        const files = store.list();
        if (files.length === 0) return 'My memory folder is empty.';
        return ['Memory files:', ...files.map((file) => `• ${file.path} (${formatBytes(file.size)})`)].join('\n');
      },
    }],
    ['trust', {
      description: 'vouch for a memory file that holds outside content, so it is in my prompt again: /trust notes/x.md',
      async run({ args }) {
        const path = args.trim();
        if (path === '') {
          const labelled = [...labels.all('memory').entries()];
          if (labelled.length === 0) return 'No memory file holds outside content.';
          return ['Memory files that hold outside content (kept out of my prompt; /trust PATH once you have checked one):', ...labelled.map(([file, sources]) => `• ${file} (from ${sources.join(', ')})`)].join('\n');
        }
        const resolved = store.resolve(path);
        if (!resolved.success) return `Not trusted: ${resolved.error}.`;
        return labels.clear('memory', resolved.relative)
          ? `${resolved.relative} is yours again: it is back in my prompt.`
          : `${resolved.relative} holds no outside content.`;
      },
    }],
    ['undo', {
      description: "revert the assistant's last memory change made from this chat",
      async run({ channel, chatId }) {
        const change = history.lastChangeOfChat(channel, chatId);
        if (!change) return 'There is no memory change from this chat to undo.';
        const result = await history.revert(change, { kind: 'undo' });
        if (!result.success) return `Not undone: ${result.error}.`;
        return change.previous === null
          ? `Undone: ${change.path} was created by that change, so it is removed again.`
          : `Undone: ${change.path} is back to how it was before that change (#${change.id}).`;
      },
    }],
  ]);
  return {
    store,
    history,
    part: {
      name: 'memory',
      tools,
      commands,
      // The running daemon watches the folder instead of reading it every turn; a one-shot command reads it once.
      async start() {
        if (!store.watch()) deps.log.warn({ path: deps.memoryDir }, 'cannot watch the memory folder; it is read again on every turn');
      },
      async close() {
        store.close();
      },
    },
  };
}

function formatBytes(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}
