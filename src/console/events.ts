import type { ServerResponse } from 'node:http';

/** What the console pushes to open pages: the chat's progress, approval questions coming and going, log lines, job changes. */
export type Topic = 'chat' | 'approvals' | 'logs' | 'jobs';

export const TOPICS: readonly Topic[] = ['chat', 'approvals', 'logs', 'jobs'];

/** Open pages at once; a browser opening more (a tab left behind on every visit) gets refused past this. */
const MAX_STREAMS = 32;
const KEEP_ALIVE_MS = 25_000;

interface Stream {
  response: ServerResponse;
  topics: ReadonlySet<Topic>;
}

/**
 * Hand-written rather than better-sse: the wire format is three lines per event, and what this adds — topics per
 * page, a cap on open pages, dropping a page that stops reading — a library would need wrapping for anyway.
 *
 * Server-sent events to the console's open pages: each page subscribes to the topics it shows and gets every
 * event of those topics as JSON. A page that goes away is dropped; a slow one is not waited for (its socket
 * buffers, and it is dropped when that buffer passes a limit).
 */
export class EventHub {
  private readonly streams = new Set<Stream>();
  private timer: NodeJS.Timeout | undefined;

  /** Takes over `response` as an event stream. False (nothing written) when too many pages are open. */
  open(response: ServerResponse, topics: ReadonlySet<Topic>): boolean {
    if (this.streams.size >= MAX_STREAMS) return false;
    response.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    // The client reconnects after this many ms if the stream drops (a daemon restart).
    response.write('retry: 3000\n\n');
    const stream: Stream = { response, topics };
    this.streams.add(stream);
    response.on('close', () => this.streams.delete(stream));
    this.timer ??= setInterval(() => this.ping(), KEEP_ALIVE_MS);
    this.timer.unref();
    return true;
  }

  publish(topic: Topic, data: unknown): void {
    if (this.streams.size === 0) return;
    const frame = `event: ${topic}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const stream of this.streams) {
      if (!stream.topics.has(topic)) continue;
      this.write(stream, frame);
    }
  }

  /** Pages listening to `topic` now. */
  listeners(topic: Topic): number {
    let count = 0;
    for (const stream of this.streams) if (stream.topics.has(topic)) count += 1;
    return count;
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    for (const stream of this.streams) stream.response.end();
    this.streams.clear();
  }

  private ping(): void {
    for (const stream of this.streams) this.write(stream, ': keep-alive\n\n');
  }

  private write(stream: Stream, frame: string): void {
    // A page that stopped reading must not make the daemon hold megabytes for it.
    if (stream.response.writableLength > 1_000_000) {
      stream.response.destroy();
      this.streams.delete(stream);
      return;
    }
    stream.response.write(frame);
  }
}
