import { randomBytes } from 'node:crypto';
import type { Result } from '../lib/result.js';
import type { ApprovalAnswer } from './prompter.js';

/** A question waiting for a person, as every surface may show it (the chat's buttons, the console's card). */
export interface OpenQuestion {
  /** Random and unguessable: what a surface names when it answers. */
  id: string;
  callId: string;
  tool: string;
  /** The chat whose turn asked (its channel is where the buttons are). */
  channel: string;
  chatId: string;
  userId: string | undefined;
  conversationId: string;
  /** The whole question: the tool, its arguments (secrets masked), the outside sources of a tainted turn, the deadline. */
  text: string;
  /** The outside content the turn had read when it asked (web pages, mails, MCP servers): the question's provenance. */
  taint: readonly string[];
  askedAt: number;
  expiresAt: number;
}

/** How a question ended, and the line a surface shows in place of its buttons. */
export interface Settlement {
  answer: ApprovalAnswer;
  /** Who answered, as the surface names them (`@ada`, `the owner`). */
  by?: string;
  /** Where the answer came from (`telegram`, `console`); absent for a timeout or a stop. */
  surface?: string;
  outcome: string;
}

export type QuestionEvent = { type: 'opened'; question: OpenQuestion } | { type: 'closed'; question: OpenQuestion; settlement: Settlement };

/** One open question: settled once, by whichever answer comes first. */
export interface QuestionHandle {
  question: OpenQuestion;
  /** Resolves when the question ends, however it ends. */
  settled: Promise<Settlement>;
  /** Ends the question with an answer. False when it had already ended (another surface answered first). */
  settle(answer: ApprovalAnswer, from?: { by?: string; surface?: string }): boolean;
}

export const OUTCOME_LINE = {
  approved: (by: string | undefined, surface: string | undefined) => `✅ Approved${by ? ` by ${by}` : ''}${surface ? ` in ${surface === 'console' ? 'the console' : surface}` : ''}.`,
  denied: (by: string | undefined, surface: string | undefined) => `❌ Denied${by ? ` by ${by}` : ''}${surface ? ` in ${surface === 'console' ? 'the console' : surface}` : ''}.`,
  timedOut: '⌛ Timed out: not approved.',
  stopped: '⏹ Stopped before an answer: not approved.',
} as const;

/**
 * The approval questions waiting for an answer, across every channel. A question is listed from the moment it is
 * asked until it ends — answered on any surface, timed out, or its turn stopped — and ends exactly once: the first
 * `settle` wins and every later one is refused, whichever surface it comes from. Listeners hear of each opening
 * and closing (the console's live list).
 */
export class OpenQuestions {
  private readonly open = new Map<string, QuestionHandle>();
  private readonly listeners = new Set<(event: QuestionEvent) => void>();

  /** Opens a question; it ends by itself after `timeoutMs` ('timeout') or when `signal` aborts ('stopped'). */
  ask(input: Omit<OpenQuestion, 'id' | 'askedAt' | 'expiresAt'> & { timeoutMs: number; signal?: AbortSignal | undefined }, now = Date.now()): QuestionHandle {
    const { timeoutMs, signal, ...fields } = input;
    const question: OpenQuestion = { ...fields, id: randomBytes(16).toString('base64url'), askedAt: now, expiresAt: now + timeoutMs };
    let resolve!: (settlement: Settlement) => void;
    const settled = new Promise<Settlement>((done) => {
      resolve = done;
    });
    let ended = false;
    const onAbort = () => handle.settle('stopped');
    const timer = setTimeout(() => handle.settle('timeout'), timeoutMs);
    timer.unref();
    const handle: QuestionHandle = {
      question,
      settled,
      settle: (answer, from = {}) => {
        if (ended) return false;
        ended = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.open.delete(question.id);
        const settlement: Settlement = { answer, ...from, outcome: outcomeLine(answer, from) };
        resolve(settlement);
        this.emit({ type: 'closed', question, settlement });
        return true;
      },
    };
    this.open.set(question.id, handle);
    this.emit({ type: 'opened', question });
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    return handle;
  }

  /** Open questions, oldest first. */
  list(): OpenQuestion[] {
    return [...this.open.values()].map((handle) => handle.question);
  }

  get(id: string): OpenQuestion | undefined {
    return this.open.get(id)?.question;
  }

  /**
   * A person's answer from a surface that shows every question (the console). Refused when the question has
   * already ended — the other surfaces then show how it ended.
   */
  answer(id: string, answer: 'approve' | 'deny', from: { by?: string; surface: string }): Result {
    const handle = this.open.get(id);
    if (!handle || !handle.settle(answer, from)) return { success: false, error: 'This question is no longer open: it was answered elsewhere, timed out, or its turn stopped.' };
    return { success: true, value: undefined };
  }

  /** Hears every opening and closing; returns the function that stops listening. */
  subscribe(listener: (event: QuestionEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(event: QuestionEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A listener that fails (a closed browser stream) must not stop the question or the others.
      }
    }
  }
}

function outcomeLine(answer: ApprovalAnswer, from: { by?: string; surface?: string }): string {
  switch (answer) {
    case 'approve':
      return OUTCOME_LINE.approved(from.by, from.surface);
    case 'deny':
      return OUTCOME_LINE.denied(from.by, from.surface);
    case 'timeout':
      return OUTCOME_LINE.timedOut;
    case 'stopped':
      return OUTCOME_LINE.stopped;
  }
}
