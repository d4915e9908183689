import type { ChatCommand } from '../part.js';

/** A chat command answered without an LLM call (the shape channels dispatch: `/task …`). */
export type NotesCommand = ChatCommand;
/** Where a request comes from: the chat a reminder or a proposal belongs to. */
export interface ChatOrigin {
  channel: string;
  chatId: string;
  userId?: string;
}

