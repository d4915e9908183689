import type { ProvenanceLabels } from '../gate/labels.js';
import type { ChatCommand, ChatCommands } from '../part.js';
import type { MemoryHistory } from './history.js';
import type { MemoryStore } from './store.js';

/** `/memory` (the files), `/trust` (vouch for a file outside content touched) and `/undo` (the chat's last change). */
export function createMemoryCommands(deps: { store: MemoryStore; history: MemoryHistory; labels: ProvenanceLabels }): ChatCommands {
  const { store, history, labels } = deps;
  return new Map<string, ChatCommand>([
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
        return labels.clear('memory', resolved.value.relative)
          ? `${resolved.value.relative} is yours again: it is back in my prompt.`
          : `${resolved.value.relative} holds no outside content.`;
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
}

function formatBytes(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}
