/**
 * One turn at a time per conversation, in arrival order; different conversations run concurrently
 * up to `maxConcurrent`. Contract: a task's rejection reaches only its own caller.
 */
export class ChatQueue {
  private readonly maxConcurrent: number;
  private readonly chats = new Map<string, Array<() => void>>();
  private readonly ready: Array<() => void> = [];
  private running = 0;
  private readonly busy = new Set<string>();

  constructor(maxConcurrent: number) {
    this.maxConcurrent = Math.max(1, maxConcurrent);
  }

  /** Queued tasks not yet started, for one chat or all. */
  pending(key?: string): number {
    if (key !== undefined) return this.chats.get(key)?.length ?? 0;
    let total = 0;
    for (const queue of this.chats.values()) total += queue.length;
    return total;
  }

  /** Tasks running now. */
  active(): number {
    return this.running;
  }

  isBusy(key: string): boolean {
    return this.busy.has(key);
  }

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        this.running += 1;
        this.busy.add(key);
        task()
          .then(resolve, reject)
          .finally(() => {
            this.running -= 1;
            this.busy.delete(key);
            this.advance(key);
          });
      };
      const queue = this.chats.get(key);
      if (queue) {
        queue.push(start);
        return;
      }
      this.chats.set(key, []);
      this.schedule(start);
    });
  }

  /** Waits until nothing is running or queued (for shutdown), or until the signal fires. */
  async idle(signal?: AbortSignal): Promise<void> {
    while ((this.running > 0 || this.pending() > 0) && !signal?.aborted) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  private schedule(start: () => void): void {
    if (this.running < this.maxConcurrent) start();
    else this.ready.push(start);
  }

  private advance(key: string): void {
    const queue = this.chats.get(key);
    const next = queue?.shift();
    if (next) this.ready.push(next);
    else this.chats.delete(key);
    while (this.running < this.maxConcurrent) {
      const start = this.ready.shift();
      if (!start) break;
      start();
    }
  }
}
