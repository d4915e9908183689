/**
 * Events other parts and tool modules can watch: turns starting and ending, every tool call the registry finished,
 * and whatever a tool sends with `ctx.emit`. Listeners observe; they cannot change anything (that is what the
 * registry's `tool:before` and `tool:after` middleware is for).
 * Contract: `emit` never throws and never waits — a listener that throws or rejects is logged, and the turn goes on.
 */
import type { Logger } from '../log.js';
import type { CallOrigin } from './context.js';

/** Any event: a `type` and its data. Tools may emit their own (`meter:reading`); the names below are Familiar's. */
export interface FamiliarEvent {
  type: string;
  [key: string]: unknown;
}

export interface TurnStartEvent extends FamiliarEvent {
  type: 'turn:start';
  conversationId: string;
  origin: CallOrigin;
  source: string;
  /** The person's message (or a job's prompt). */
  text: string;
}

export interface TurnEndEvent extends FamiliarEvent {
  type: 'turn:end';
  conversationId: string;
  origin: CallOrigin;
  source: string;
  turnId: string;
  status: string;
  toolCalls: number;
  durationMs: number;
}

/** Every call the registry finished, refused ones included (before the tool ran: `ran` false). */
export interface ToolCallEvent extends FamiliarEvent {
  type: 'tool:call';
  tool: string;
  callId: string;
  conversationId: string;
  turnId: string;
  origin: CallOrigin;
  success: boolean;
  durationMs: number;
  /** The approval decision, when one was needed. */
  decision?: string;
}

/** What a tool sent with `ctx.emit`; the registry adds who sent it. */
export interface ToolEmitEvent extends FamiliarEvent {
  tool: string;
  callId: string;
  conversationId: string;
}

export interface KnownEvents {
  'turn:start': TurnStartEvent;
  'turn:end': TurnEndEvent;
  'tool:call': ToolCallEvent;
}

/** Names a tool may not emit: they would pass for the daemon's own events (or its middleware). */
export const RESERVED_EVENTS: ReadonlySet<string> = new Set(['turn:start', 'turn:end', 'tool:call', 'tool:before', 'tool:after']);

export type EventListener<E extends FamiliarEvent = FamiliarEvent> = (event: E) => void | Promise<void>;

/** Where events go: what the registry and the turns are given. */
export interface EventSink {
  emit(event: FamiliarEvent): void;
}

interface Subscription {
  type: string;
  listener: EventListener;
  source: string;
}

export class EventBus implements EventSink {
  private readonly subscriptions: Subscription[] = [];

  constructor(private readonly log: Logger) {}

  /**
   * Calls `listener` for each event of `type` (`*`: every event). `source` names who listens (a module's file, a
   * part), for the log line when it fails. Returns the way to stop listening.
   */
  on<K extends keyof KnownEvents>(type: K, listener: EventListener<KnownEvents[K]>, options?: { source?: string }): () => void;
  on(type: string, listener: EventListener, options?: { source?: string }): () => void;
  on(type: string, listener: EventListener<never>, options: { source?: string } = {}): () => void {
    const subscription: Subscription = { type, listener: listener as EventListener, source: options.source ?? 'a listener' };
    this.subscriptions.push(subscription);
    return () => {
      const index = this.subscriptions.indexOf(subscription);
      if (index >= 0) this.subscriptions.splice(index, 1);
    };
  }

  emit(event: FamiliarEvent): void {
    // A copy: a listener that unsubscribes (a module reloading) does not make the loop skip the next one.
    for (const subscription of [...this.subscriptions]) {
      if (subscription.type !== event.type && subscription.type !== '*') continue;
      const fail = (error: unknown) => this.log.warn({ err: error, event: event.type, listener: subscription.source }, `event listener of ${subscription.source} failed`);
      try {
        const returned = subscription.listener(event);
        if (returned instanceof Promise) returned.catch(fail);
      } catch (error) {
        fail(error);
      }
    }
  }

  /** How many listeners there are (for a type, or all): doctor and tests. */
  count(type?: string): number {
    return type === undefined ? this.subscriptions.length : this.subscriptions.filter((subscription) => subscription.type === type).length;
  }
}
