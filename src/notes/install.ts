import type { App } from '../app.js';
import type { ChatMessage } from '../llm/types.js';
import { createMailSource } from './email-source.js';
import { createNotesPart, type NotesPartDeps } from './part.js';

/**
 * Today's daemon wiring of the notes part (the lead ports this to the composition root): its narrow
 * dependencies taken from the app, its tools and chat commands registered, its module started with the rest.
 */
export async function installNotes(app: App): Promise<void> {
  const part = createNotesPart(notesDeps(app));
  for (const tool of part.tools) app.tools.register(tool);
  for (const [name, command] of part.commands) app.chatCommands.set(name, command);
  app.modules.push({ name: 'notes', start: () => part.start(), stop: () => part.stop(), doctor: () => part.doctor() });
}

export function notesDeps(app: App): NotesPartDeps {
  const mailbox = app.context.mailbox;
  return {
    memory: app.memory,
    db: app.db,
    log: app.log.child({ component: 'notes' }),
    timeZone: app.config.timezone,
    http: app.config.tools.http,
    ...(app.context.scheduler ? { scheduler: app.context.scheduler } : {}),
    deliver: (target, text) => app.channels.deliver(target, { text }),
    ...(app.config.scheduler.default_chat !== undefined ? { defaultChat: app.config.scheduler.default_chat } : {}),
    ...(mailbox ? { mail: createMailSource(mailbox.session, mailbox.account) } : {}),
    ...(app.llmReady ? { llm: app.context.llm } : {}),
    conversation: {
      converse: async ({ text, origin, conversationId }) => {
        const result = await app.converse({ text, origin, conversationId, source: origin.channel === 'cli' ? 'cli' : 'chat' });
        return { text: result.text };
      },
      lastAnswer: (conversationId) => lastAnswer(app.conversations.history(conversationId, Number.MAX_SAFE_INTEGER, 200)),
      remember: (conversationId, turnId, messages) => app.conversations.append(conversationId, turnId, messages),
    },
  };
}

function lastAnswer(history: readonly ChatMessage[]): string | undefined {
  for (let index = history.length - 1; index >= 0; index -= 1) {
    const message = history[index];
    if (message?.role === 'assistant' && typeof message.content === 'string' && message.content.trim() !== '' && !message.tool_calls?.length) return message.content;
  }
  return undefined;
}
