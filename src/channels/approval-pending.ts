import { randomBytes } from 'node:crypto';
import type { ApprovalAnswer, ApprovalPrompt } from '../approval/prompter.js';
import { AppError } from '../errors.js';
import type { Logger } from '../log.js';

/** Button data is `approval:<id>:approve|deny`; the id is random, so a forged press cannot name an open request. */
const BUTTON_DATA = /^approval:([A-Za-z0-9_-]{22}):(approve|deny)$/;

export const OUTCOME = {
  approved: (by: string) => `✅ Approved by ${by}.`,
  denied: (by: string) => `❌ Denied by ${by}.`,
  timedOut: '⌛ Timed out: not approved.',
  stopped: '⏹ Stopped before an answer: not approved.',
  shutdown: '⌛ Not answered: Familiar is shutting down, so this was not approved.',
  notYours: 'Not yours to answer: only the person who asked can approve this.',
  closed: 'This request is no longer open.',
} as const;

export function buttonData(id: string, choice: 'approve' | 'deny'): string {
  return `approval:${id}:${choice}`;
}

export function parseButtonData(data: string | undefined): { id: string; choice: 'approve' | 'deny' } | undefined {
  const match = data === undefined ? null : BUTTON_DATA.exec(data);
  if (!match?.[1]) return undefined;
  return { id: match[1], choice: match[2] === 'approve' ? 'approve' : 'deny' };
}

/**
 * The question as it is sent: whole, or not at all. A question cut to fit could hide what is being approved, so
 * one too long for the platform throws, and the gate treats that as a denial. (The gate writes questions to fit
 * `ApprovalPrompter.maxChars`; this is the last line of defence.)
 */
export function wholeQuestion(text: string, limit: number): string {
  if (text.length > limit) throw new AppError('APPROVAL_TOO_LONG', `the approval question is ${text.length} characters, more than the ${limit} a message can hold; it was not sent, so the call is not approved`);
  return text;
}

/**
 * Who may answer a question: only the person it is for (`userId`), and where the platform answers by a reaction in a
 * chat rather than a press on the question's own message, only in the chat it was asked in. A question that names
 * nobody has nobody who may answer it (it times out unapproved) rather than everyone who may talk to the bot.
 */
export function mayAnswer(prompt: ApprovalPrompt, presser: string, chatId?: string): boolean {
  return prompt.userId !== undefined && presser === prompt.userId && (chatId === undefined || chatId === prompt.chatId);
}

/** The message as shown once decided: the question, then the outcome. */
export function withOutcome(text: string, outcome: string, limit: number): string {
  return fitText(`${text}\n\n${outcome}`, limit);
}

/**
 * Shortens `text` to `limit` characters by cutting its longest line (the arguments), so the question, the
 * outside-source warning and the deadline stay whole. The text is already masked: cutting cannot reveal a secret.
 */
export function fitText(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const lines = text.split('\n');
  let longest = 0;
  lines.forEach((line, index) => {
    if (line.length > (lines[longest]?.length ?? 0)) longest = index;
  });
  const line = lines[longest] ?? '';
  const keep = line.length - (text.length - limit) - 1;
  if (keep < 20) return `${text.slice(0, limit - 1)}…`;
  lines[longest] = `${line.slice(0, keep)}…`;
  return lines.join('\n');
}

/** Where a sent question lives, and how to rewrite it (without buttons) once it is decided. */
export interface ShownQuestion {
  messageId: string;
  rewrite(outcome: string): Promise<void>;
}

interface OpenRequest {
  prompt: ApprovalPrompt;
  resolve(answer: ApprovalAnswer): void;
  timer: NodeJS.Timeout;
  shown?: ShownQuestion;
  /** Set when the request ended before its message was sent: the message is rewritten as soon as it exists. */
  endedWith?: string;
}

/**
 * The open approval questions of one channel, by unguessable id. A request ends exactly once: by a press
 * (`decide`), by its timeout, or by shutdown (`closeAll`); later presses find nothing.
 */
export class PendingApprovals {
  private readonly open = new Map<string, OpenRequest>();
  private readonly log: Logger;

  constructor(log: Logger) {
    this.log = log;
  }

  get size(): number {
    return this.open.size;
  }

  /**
   * Opens a request, lets `show` send the question with buttons carrying the id, and resolves with the answer
   * ('timeout' after `prompt.timeoutMs`). Throws only when the question could not be sent (the gate denies).
   */
  async ask(prompt: ApprovalPrompt, show: (id: string) => Promise<ShownQuestion>): Promise<ApprovalAnswer> {
    const id = randomBytes(16).toString('base64url');
    let resolve!: (answer: ApprovalAnswer) => void;
    const answer = new Promise<ApprovalAnswer>((done) => {
      resolve = done;
    });
    const timer = setTimeout(() => this.end(id, 'timeout', OUTCOME.timedOut), prompt.timeoutMs);
    timer.unref();
    const request: OpenRequest = { prompt, resolve, timer };
    this.open.set(id, request);
    // /stop on the turn that asked: the question ends unapproved and its buttons go.
    const onStop = () => this.end(id, 'stopped', OUTCOME.stopped);
    if (prompt.signal?.aborted) onStop();
    else prompt.signal?.addEventListener('abort', onStop, { once: true });
    void answer.finally(() => prompt.signal?.removeEventListener('abort', onStop));
    // Answered on another surface (the console), timed out or stopped there: the buttons go, the outcome is shown.
    void prompt.settled?.then(({ answer: ended, outcome }) => this.end(id, ended, outcome));
    try {
      request.shown = await show(id);
    } catch (error) {
      clearTimeout(timer);
      this.open.delete(id);
      prompt.signal?.removeEventListener('abort', onStop);
      throw error;
    }
    if (request.endedWith !== undefined) this.rewrite(request, request.endedWith);
    return answer;
  }

  /** The open request `id` (to check who may answer it), without ending it. */
  peek(id: string): { prompt: ApprovalPrompt; messageId?: string } | undefined {
    const request = this.open.get(id);
    if (!request) return undefined;
    return { prompt: request.prompt, ...(request.shown ? { messageId: request.shown.messageId } : {}) };
  }

  /**
   * Ends request `id` with a person's answer. `outcome`, when given, is written into the question's message;
   * leave it out when the caller rewrites the message itself (a Discord interaction update). False when the
   * request had already ended — here, or on another surface that answered first (`by` names the presser there).
   */
  decide(id: string, answer: 'approve' | 'deny', outcome?: string, by?: string): boolean {
    const request = this.open.get(id);
    if (!request) return false;
    if (request.prompt.claim && !request.prompt.claim(answer, by ?? 'the person')) return false;
    return this.end(id, answer, outcome);
  }

  /** Shutdown: every open question ends unapproved, so turns waiting on one can finish during the drain. */
  closeAll(outcome: string = OUTCOME.shutdown): void {
    for (const id of [...this.open.keys()]) this.end(id, 'timeout', outcome);
  }

  private end(id: string, answer: ApprovalAnswer, outcome: string | undefined): boolean {
    const request = this.open.get(id);
    if (!request) return false;
    this.open.delete(id);
    clearTimeout(request.timer);
    // The turn goes on first; the message edit is cosmetic and must not hold it.
    request.resolve(answer);
    if (outcome === undefined) return true;
    if (request.shown) this.rewrite(request, outcome);
    else request.endedWith = outcome;
    return true;
  }

  private rewrite(request: OpenRequest, outcome: string): void {
    request.shown?.rewrite(outcome).catch((error: unknown) => {
      this.log.warn({ err: error, tool: request.prompt.tool, callId: request.prompt.callId }, 'approval: could not update the question message');
    });
  }
}
