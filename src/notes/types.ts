import type { ChatCommand } from '../part.js';

/** A chat command answered without an LLM call (the shape channels dispatch: `/task …`). */
export type NotesCommand = ChatCommand;
/** The one result union of this part (as the rest of the code base spells it). */
export type Result<T> = { success: true; value: T } | { success: false; error: string };

export function success<T>(value: T): Result<T> {
  return { success: true, value };
}

export function failure<T = never>(error: string): Result<T> {
  return { success: false, error };
}

/** Where a request comes from: the chat a reminder or a proposal belongs to. */
export interface ChatOrigin {
  channel: string;
  chatId: string;
  userId?: string;
}

