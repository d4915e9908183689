import { linkAbort } from '../lib/abort.js';
import type { Logger } from '../log.js';
import type { CallRequest, RegisteredTool } from '../tools/call.js';
import { RESERVED_EVENTS, type EventSink, type FamiliarEvent } from '../tools/events.js';
import type { ToolCallContext, ToolContext, ToolEvent } from '../tools/types.js';

/** One call's context, the controller that cancels it, and what `run` hooks into while it runs. */
export interface CallScope {
  entry: RegisteredTool;
  /** The arguments it runs with (after defaults and hooks). */
  params: Record<string, unknown>;
  ctx: ToolCallContext;
  /** Ends the call's signal (its deadline passed): the tool sees `ctx.signal` aborted with this reason. */
  abort(reason: unknown): void;
  /** Set while the tool runs: a progress report moves the deadline. */
  progress: { onProgress?: (() => void) | undefined };
  /** Set when the tool itself called `cancel()`: its own result is still awaited and kept. */
  cancelling: boolean;
  dispose(): void;
}

/**
 * The per-call view of the shared context: this call's identity, its cancellation linked to the turn's, a logger bound
 * to the call (made only when a line is written: a child logger costs more than the rest of a call's bookkeeping),
 * `emit`, which passes what a tool sends to the event sink, marked with who sent it, and the run's `input`, `state`
 * and `cancel` (seed 001's ExecutionContext). `dispose` unlinks the cancellation once the call is done.
 */
export function openCallScope(entry: RegisteredTool, request: CallRequest, context: ToolContext, callId: string, events: EventSink | undefined): CallScope {
  // The call's controller, linked to the turn's signal, is made when the tool first reads `ctx.signal` (or its
  // deadline passes): most calls never look, and a controller and a listener on the turn's signal per call are
  // what a call's bookkeeping spent most on after the logger.
  let controller: AbortController | undefined;
  let unlink: (() => void) | undefined;
  const control = (): AbortController => {
    if (!controller) {
      controller = new AbortController();
      unlink = linkAbort(controller, request.signal);
    }
    return controller;
  };
  const aborted = (): boolean => (controller ? controller.signal.aborted : request.signal?.aborted === true);
  const progress: CallScope['progress'] = {};
  let log: Logger | undefined;
  const callLog = (): Logger => (log ??= context.log.child({ tool: entry.name, callId }));
  const scope = {
    entry, params: {}, progress, cancelling: false,
    abort: (reason: unknown) => control().abort(reason),
    dispose: () => unlink?.(),
  } as CallScope;
  const ctx: ToolCallContext = {
    config: context.config,
    get log() {
      return callLog();
    },
    secrets: context.secrets,
    memory: context.memory,
    scheduler: context.scheduler,
    ...(context.pool ? { pool: context.pool } : {}),
    conversationId: request.conversationId,
    workspaceId: request.workspaceId ?? request.conversationId,
    turnId: request.turnId,
    callId,
    get signal() {
      return control().signal;
    },
    origin: request.origin,
    unattended: request.unattended ?? false,
    taint: request.taint ?? [],
    input: request.input ?? '',
    state: request.state ?? new Map<string, unknown>(),
    cancel(reason?: string) {
      const why = typeof reason === 'string' && reason.trim() !== '' ? reason : `${entry.functionName} cancelled the run`;
      scope.cancelling = true;
      if (request.cancel) request.cancel(why);
      else control().abort(new DOMException(why, 'AbortError'));
    },
    emit(event: FamiliarEvent) {
      if (event === null || typeof event !== 'object' || typeof event.type !== 'string' || RESERVED_EVENTS.has(event.type)) {
        callLog().warn({ event: (event as { type?: unknown } | null)?.type }, 'tool emitted an event without a type of its own; dropped');
        return;
      }
      if (aborted()) return;
      if (event.type === 'progress' && typeof event.progress === 'number') {
        // A call that reports progress is alive: its deadline moves (see deadline.ts), and the turn's watcher shows it.
        progress.onProgress?.();
        try {
          request.onEvent?.({ ...(event as ToolEvent), tool: entry.name, callId });
        } catch (error) {
          callLog().warn({ err: error }, 'tool event listener failed');
        }
      }
      events?.emit({ ...event, tool: entry.name, callId, conversationId: request.conversationId });
    },
  };
  scope.ctx = ctx;
  return scope;
}
