/**
 * Makes `controller` abort when `parent` does (with the parent's reason, at once if it already has) and returns how to
 * unlink it once the work is done. Linked by hand: `AbortSignal.any` retains its sources, and a listener left on a
 * long-lived signal (a turn's, across its model and tool calls) accumulates until that signal fires.
 */
export function linkAbort(controller: AbortController, parent: AbortSignal | undefined): () => void {
  if (!parent) return () => undefined;
  const forward = (): void => controller.abort(parent.reason);
  if (parent.aborted) {
    forward();
    return () => undefined;
  }
  parent.addEventListener('abort', forward, { once: true });
  return () => parent.removeEventListener('abort', forward);
}
