/**
 * The contract a chat channel implements to ask its person to approve a high-risk tool call
 * (Telegram inline buttons, Discord buttons, a y/N line in the terminal).
 */
export type ApprovalAnswer = 'approve' | 'deny' | 'timeout' | 'stopped';

export interface ApprovalPrompt {
  /** The chat the turn came from (the channel adapter's own chat id). */
  chatId: string;
  /** Who started the turn; a channel should accept a press from this user only. */
  userId?: string;
  /** Ready-to-send text: tool, masked arguments and, for a tainted turn, the outside source. */
  text: string;
  /** After this long the gate treats the call as denied; the UI should then disable its buttons. */
  timeoutMs: number;
  /** Unique per call; a good key for button callback data. */
  callId: string;
  tool: string;
  /** The asking turn's signal: when it aborts (/stop), the question ends unapproved ('stopped') and says so. */
  signal?: AbortSignal;
  /**
   * The question is open on other surfaces too (the console): the first answer anywhere wins. Call `claim` when a
   * person answers here, before acting on it; false means it already ended elsewhere (change nothing, say so).
   */
  claim?(answer: 'approve' | 'deny', by: string): boolean;
  /** Resolves when the question ends, however it ends: the line to show in place of the buttons. */
  settled?: Promise<{ answer: ApprovalAnswer; outcome: string }>;
}

/**
 * Contract: resolves with the person's answer, 'timeout' when nobody answered within `timeoutMs`;
 * never throws for a missing answer. Presses must be handled outside the chat's turn queue: the turn
 * that asked is waiting for this promise.
 */
export interface ApprovalPrompter {
  /**
   * The longest question this prompter can show whole (a platform's message limit). The gate writes the
   * question to fit, with the call's destination never cut, and does not ask when that is impossible.
   */
  readonly maxChars?: number;
  ask(prompt: ApprovalPrompt): Promise<ApprovalAnswer>;
}
