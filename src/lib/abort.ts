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

/**
 * A signal that aborts after `ms` (with a TimeoutError, as AbortSignal.timeout's), or when `parent` does; `done()`
 * clears the timer and unlinks the parent. Not `AbortSignal.any([AbortSignal.timeout(ms), parent])`: on Node 20 the
 * composite holds its sources weakly, and the timeout's timer holds its own signal weakly, so after a collection the
 * composite never aborts (test/lib/abort.test.ts). Here the timer holds the controller.
 */
export function deadline(ms: number, parent?: AbortSignal): { signal: AbortSignal; done(): void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), ms);
  // Like AbortSignal.timeout's: the time limit alone does not keep the process running.
  timer.unref();
  const unlink = linkAbort(controller, parent);
  return {
    signal: controller.signal,
    done() {
      clearTimeout(timer);
      unlink();
    },
  };
}

/**
 * Whether `work` settles (either way) within `ms`: resolves true when it does, false when the time passes first. The
 * timer does not hold the process.
 */
export function settledWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    timer.unref();
    const done = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    work.then(done, done);
  });
}
