import type { App } from '../app.js';
import { MemoryHistory } from './history.js';

/** Memory history, the hand-edit guard and `/undo`. */
export async function installMemoryHistory(app: App): Promise<void> {
  const history = new MemoryHistory(app.memory, app.db, app.log.child({ component: 'memory-history' }));
  history.attach();
  // Reads the model made: an overwrite later in the conversation is checked against what it saw.
  app.tools.on('tool:after', ({ tool, params, ctx, result }) => {
    if (tool !== 'memory_read' || !result.success || typeof params.path !== 'string') return;
    try {
      const resolved = app.memory.resolve(params.path);
      if (resolved.success) history.noteRead(ctx.conversationId, resolved.relative, app.memory.read(resolved.relative));
    } catch {
      // gone in between: nothing was seen
    }
  });
  app.chatCommands.set('undo', {
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
  });
}
