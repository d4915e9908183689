import type { Database } from '../db/database.js';
import type { Logger } from '../log.js';
import { seedFolder } from '../ops/seed-folders.js';
import type { ChatCommand, Part } from '../part.js';
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
export function createMemoryPart(deps: { memoryDir: string; db: Database; log: Logger }): MemoryPart {
  // The starter memory (the package's memory/) is copied in on first use: the person's files are theirs.
  seedFolder('memory', deps.memoryDir, deps.log);
  const store = new MemoryStore(deps.memoryDir, deps.db);
  const history = new MemoryHistory(store, deps.db, deps.log.child({ component: 'memory-history' }));
  history.attach();
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
  return { store, history, part: { name: 'memory', tools, commands } };
}

function formatBytes(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}
