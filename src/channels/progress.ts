import type { Logger } from '../log.js';
import type { TurnEvent } from '../turns/types.js';

/** Replaces the text of a message sent earlier. */
export type EditMessage = (text: string) => Promise<void>;

/** How a chat shows a status line that changes: one message sent, then edited. */
export interface EditableSender {
  sendEditable(text: string): Promise<EditMessage>;
}

export interface ProgressView {
  onEvent(event: TurnEvent): void;
  /** The turn is over: nothing more is sent or edited. */
  close(): void;
}

const LINE_CHARS = 300;

/**
 * A long tool call's progress in a chat, without flooding it: the first report sends one short message, later
 * reports edit that message, at most once every `intervalMs` (the latest report wins; one that arrives too soon is
 * shown when the interval is up). Platforms rate-limit edits, and a call may report many times a second.
 * Contract: never throws; a send or edit that fails ends the view quietly (the typing indicator goes on).
 */
export function createProgressView(chat: EditableSender, options: { intervalMs: number; log: Logger; now?: () => number }): ProgressView {
  const now = options.now ?? Date.now;
  let edit: Promise<EditMessage | undefined> | undefined;
  let shownAt = 0;
  let shown: string | undefined;
  let pending: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  // One send or edit at a time, in order.
  let chain: Promise<void> = Promise.resolve();

  const show = (text: string): void => {
    pending = undefined;
    if (text === shown) return;
    shown = text;
    shownAt = now();
    chain = chain.then(async () => {
      if (closed) return;
      try {
        if (!edit) {
          edit = chat.sendEditable(text).catch((error: unknown) => {
            options.log.debug({ err: error }, 'progress message could not be sent');
            closed = true;
            return undefined;
          });
          await edit;
          return;
        }
        const replace = await edit;
        if (replace && !closed) await replace(text);
      } catch (error) {
        options.log.debug({ err: error }, 'progress message could not be edited');
        closed = true;
      }
    });
  };

  return {
    onEvent(event) {
      if (closed || event.type !== 'progress') return;
      const text = formatProgress(event);
      const wait = shownAt + options.intervalMs - now();
      if (shown === undefined || wait <= 0) {
        show(text);
        return;
      }
      pending = text;
      timer ??= setTimeout(() => {
        timer = undefined;
        if (!closed && pending !== undefined) show(pending);
      }, wait);
      timer.unref?.();
    },
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}

/** `⏳ mcp:files:index — 3/5 (60%) scanning photos`: one line, the server's message cut and without controls. */
export function formatProgress(event: Extract<TurnEvent, { type: 'progress' }>): string {
  const { progress, total } = event;
  const amount = total !== undefined && total > 0
    ? `${formatAmount(progress)}/${formatAmount(total)} (${Math.min(100, Math.max(0, Math.round((progress / total) * 100)))}%)`
    : formatAmount(progress);
  // The message comes from the tool (an MCP server): shown as plain text, on one line.
  const message = (event.message ?? '').replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  const line = `⏳ ${event.tool} — ${amount}${message ? ` ${message}` : ''}`;
  const points = Array.from(line);
  return points.length > LINE_CHARS ? `${points.slice(0, LINE_CHARS - 1).join('')}…` : line;
}

function formatAmount(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}
