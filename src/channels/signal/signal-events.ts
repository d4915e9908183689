import { EventSource } from 'eventsource';
import type { Logger } from '../../log.js';
import { isRecord } from './signal-rpc.js';

/** A `receive` event's data as signal-cli writes it (JsonReceiveMessageHandler): the envelope and the account. */
export interface ReceivedEvent {
  account?: string;
  envelope?: Record<string, unknown>;
}

export interface SignalEventsOptions {
  /** signal-cli's daemon, without the path. */
  base: string;
  account: string;
  log: Logger;
  onEvent(event: ReceivedEvent): void;
  /** The stream is open (again): called on every (re)connection. */
  onOpen?(): void;
  /** Waited before opening a new stream after signal-cli refused one (the library retries dropped streams itself). */
  retryMs?: number;
}

/**
 * signal-cli's `GET /api/v1/events`: Server-Sent Events of the messages the account receives, read with the
 * `eventsource` package (the WHATWG client). The library reconnects a dropped stream by itself; a refused one (not
 * 200, not an event stream: signal-cli restarting) ends it, so a new one is opened after `retryMs`. Events are handed
 * on in the order they arrive. Contract: never throws; a malformed event is logged and skipped.
 */
export class SignalEvents {
  private readonly options: SignalEventsOptions;
  private source: EventSource | undefined;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;
  private failures = 0;
  /** Settles the pending `open`, until the first stream opens or fails. */
  private opening: ((error?: Error) => void) | undefined;

  constructor(options: SignalEventsOptions) {
    this.options = options;
  }

  /** Resolves once the first stream is open, or rejects with why it could not be opened (or that `close` came first). */
  open(): Promise<void> {
    return new Promise((resolve, reject) => {
      let first = true;
      const settle = (error?: Error): void => {
        if (!first) return;
        first = false;
        this.opening = undefined;
        if (error) reject(error);
        else resolve();
      };
      this.opening = settle;
      this.connect(settle);
    });
  }

  close(): void {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.source?.close();
    this.source = undefined;
    // A closed stream says nothing more: an open still waiting would wait for ever.
    this.opening?.(new Error('closed before the event stream opened'));
  }

  private connect(settled: (error?: Error) => void): void {
    if (this.closed) return;
    const { base, account, log } = this.options;
    // A multi-account daemon sends every account's messages unless told which; a single-account one ignores it.
    const source = new EventSource(`${base}/api/v1/events?account=${encodeURIComponent(account)}`);
    this.source = source;
    source.addEventListener('open', () => {
      if (this.failures > 0) log.info('signal: event stream open again');
      this.failures = 0;
      settled();
      this.options.onOpen?.();
    });
    source.addEventListener('receive', (event) => this.receive(event.data));
    source.addEventListener('error', (event) => {
      if (this.closed) return;
      this.failures += 1;
      const reason = event.message ?? 'the connection failed';
      settled(new Error(reason));
      if (source.readyState !== EventSource.CLOSED) {
        // The library reconnects by itself.
        if (this.failures === 1) log.warn({ reason }, 'signal: event stream dropped; reconnecting');
        return;
      }
      log[this.failures === 1 ? 'warn' : 'debug']({ reason, code: event.code }, 'signal: event stream refused; trying again');
      this.retry = setTimeout(() => this.connect(() => undefined), this.options.retryMs ?? 5000);
      this.retry.unref();
    });
  }

  private receive(data: string): void {
    let event: unknown;
    try {
      event = JSON.parse(data);
    } catch {
      this.options.log.warn({ bytes: data.length }, 'signal: an event that is not JSON was skipped');
      return;
    }
    if (!isRecord(event)) return;
    try {
      this.options.onEvent(event as ReceivedEvent);
    } catch (error) {
      this.options.log.error({ err: error }, 'signal: handling an event failed');
    }
  }
}
