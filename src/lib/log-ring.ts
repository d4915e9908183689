/**
 * The daemon's last log lines in memory (JSON, as written, after redaction), for the console's live view. A
 * fixed ring: it never grows past `capacity` lines, whatever the daemon logs. Written by the logger as one more
 * destination (`createLogger({ tee })`); it does not depend on any log file.
 */
export class LogRing {
  readonly capacity: number;
  private readonly lines: string[] = [];
  private next = 0;
  private readonly listeners = new Set<(line: string) => void>();

  constructor(capacity = 500) {
    this.capacity = capacity;
  }

  /** A pino destination: one call per line, with its newline. */
  write(chunk: string): boolean {
    const line = chunk.endsWith('\n') ? chunk.slice(0, -1) : chunk;
    if (this.lines.length < this.capacity) this.lines.push(line);
    else this.lines[this.next] = line;
    this.next = (this.next + 1) % this.capacity;
    for (const listener of this.listeners) {
      try {
        listener(line);
      } catch {
        // A listener that fails (a closed browser stream) must not stop logging.
      }
    }
    return true;
  }

  /** The newest `limit` lines, oldest first. */
  recent(limit = this.capacity): string[] {
    const ordered = this.lines.length < this.capacity ? [...this.lines] : [...this.lines.slice(this.next), ...this.lines.slice(0, this.next)];
    return ordered.slice(-limit);
  }

  /** Hears each new line; returns the function that stops listening. */
  subscribe(listener: (line: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
