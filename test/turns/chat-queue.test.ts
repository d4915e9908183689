import { describe, expect, it } from 'vitest';
import { ChatQueue } from '../../src/turns/chat-queue.js';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('ChatQueue', () => {
  it('runs one task at a time per chat, in arrival order', async () => {
    const queue = new ChatQueue(4);
    const order: string[] = [];
    const gate = deferred();
    const first = queue.run('a', async () => {
      order.push('a1 start');
      await gate.promise;
      order.push('a1 end');
    });
    const second = queue.run('a', async () => {
      order.push('a2');
    });
    const third = queue.run('a', async () => {
      order.push('a3');
    });
    await Promise.resolve();
    expect(queue.pending('a')).toBe(2);
    gate.resolve();
    await Promise.all([first, second, third]);
    expect(order).toEqual(['a1 start', 'a1 end', 'a2', 'a3']);
  });

  it('runs different chats concurrently up to the cap', async () => {
    const queue = new ChatQueue(2);
    const gate = deferred();
    let running = 0;
    let peak = 0;
    const task = async () => {
      running += 1;
      peak = Math.max(peak, running);
      await gate.promise;
      running -= 1;
    };
    const all = ['a', 'b', 'c', 'd'].map((key) => queue.run(key, task));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(queue.active()).toBe(2);
    gate.resolve();
    await Promise.all(all);
    expect(peak).toBe(2);
    expect(queue.active()).toBe(0);
  });

  it('keeps going after a task fails, and the failure reaches only its caller', async () => {
    const queue = new ChatQueue(1);
    const failing = queue.run('a', async () => {
      throw new Error('nope');
    });
    const next = queue.run('a', async () => 'fine');
    await expect(failing).rejects.toThrow('nope');
    await expect(next).resolves.toBe('fine');
  });
});
