import type { CallOrigin } from '../tools/types.js';

/**
 * A chat's messages in the order they came, from the moment each arrives until its reply is sent: a message still
 * downloading its files keeps its place in the queue, replies leave in message order, and `/stop` reaches the turn
 * that is running. One state per chat (`ChatLine`), kept only while the chat has messages in flight.
 */
export interface ChatTicket {
  /** Aborted by `/stop` (when this message's turn is the one running) and at shutdown. */
  readonly signal: AbortSignal;
  /** The chat's current conversation, resolved once, when first asked (a command, or the turn's turn in line). */
  conversation(): string;
  /** Resolves when every earlier message of the chat is in the queue (or done): this one may prepare and enter. */
  inLine(): Promise<void>;
  /** Marks this message as entered (its turn is queued), so the next one may enter. */
  entered(): void;
  /** Sends after the replies of every earlier message of the chat have been sent. */
  reply(send: () => Promise<void>): Promise<void>;
  /** This message is finished (answered, failed, or needed no turn): later ones no longer wait for it. Idempotent. */
  done(): void;
}

interface ChatLine {
  /** Tickets accepted and not done, oldest first: the first one's turn is the running one. */
  tickets: Array<{ controller: AbortController }>;
  /** Resolves when the latest ticket has entered the queue. */
  intake: Promise<void>;
  /** Resolves when the latest ticket's replies are all sent. */
  outbox: Promise<void>;
}

export class ChatLines {
  private readonly lines = new Map<string, ChatLine>();

  constructor(private readonly resolve: (channel: string, chatId: string) => string) {}

  /** A new message in a chat: its place in line (`conversationId` when the caller already resolved it). */
  enter(origin: Pick<CallOrigin, 'channel' | 'chatId'>, known?: string): ChatTicket {
    const key = `${origin.channel}:${origin.chatId}`;
    const line = this.lines.get(key) ?? { tickets: [], intake: Promise.resolve(), outbox: Promise.resolve() };
    this.lines.set(key, line);
    const entry = { controller: new AbortController() };
    line.tickets.push(entry);
    let entered!: () => void;
    let sent!: () => void;
    const previousIntake = line.intake;
    const previousReply = line.outbox;
    const inQueue = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const replied = new Promise<void>((resolve) => {
      sent = resolve;
    });
    line.intake = inQueue;
    line.outbox = replied;
    let conversationId = known;
    let finished = false;
    return {
      signal: entry.controller.signal,
      conversation: () => (conversationId ??= this.resolve(origin.channel, origin.chatId)),
      inLine: () => previousIntake,
      entered,
      reply: async (send) => {
        await previousReply;
        await send();
      },
      done: () => {
        if (finished) return;
        finished = true;
        entered();
        sent();
        line.tickets = line.tickets.filter((ticket) => ticket !== entry);
        // Every ticket of the line is done, so all its promises are settled: the next message starts a fresh line.
        if (line.tickets.length === 0 && this.lines.get(key) === line) this.lines.delete(key);
      },
    };
  }

  /** Aborts the running turn of a chat; false when nothing was running. */
  stop(channel: string, chatId: string): boolean {
    const running = this.lines.get(`${channel}:${chatId}`)?.tickets[0];
    if (!running || running.controller.signal.aborted) return false;
    running.controller.abort(new DOMException('stopped by the person', 'AbortError'));
    return true;
  }

  /** Messages accepted and not finished, in every chat (what `/status` calls the queue). */
  waiting(): number {
    let total = 0;
    for (const line of this.lines.values()) total += line.tickets.length;
    return total;
  }
}
