import { MIN_SECRET_LENGTH, safeVariants } from './redaction.js';

/**
 * Redaction of text that arrives in pieces (a streamed answer): redacting each piece alone would let a secret split
 * across two pieces through. The end of the text that could be the start of a secret (in any form the redactor
 * looks for) is held back until the next piece or `flush`, and a cut is never made inside a secret: a cut is good
 * when redacting both sides apart gives the same text as redacting them together. Ordinary text is held back by at
 * most a few characters, so the stream stays a stream.
 */
export class StreamRedactor {
  private pending = '';
  private readonly variants: string[];
  private readonly redact: (text: string) => string;

  /** `secrets`: the configured values; `redact`: the redactor of whole texts for the same secrets. */
  constructor(secrets: readonly string[], redact: (text: string) => string) {
    this.variants = [...new Set(secrets.filter((secret) => secret.length >= MIN_SECRET_LENGTH).flatMap((secret) => safeVariants(secret)))];
    this.redact = redact;
  }

  /** The part of the text so far that is safe to show now, redacted; the rest waits for more. */
  push(text: string): string {
    this.pending += text;
    if (this.variants.length === 0) return this.take(this.pending.length);
    let cut = this.pending.length - this.heldTail();
    const whole = this.redact(this.pending);
    while (cut > 0 && this.redact(this.pending.slice(0, cut)) + this.redact(this.pending.slice(cut)) !== whole) cut -= 1;
    return cut > 0 ? this.take(cut) : '';
  }

  /** Whatever is held back, redacted (the answer ended, or a tool call starts). */
  flush(): string {
    return this.take(this.pending.length);
  }

  /** Forgets what is held back (the answer starts over). */
  reset(): void {
    this.pending = '';
  }

  /** The length of the longest end of the pending text that begins some form of a secret (0: none does). */
  private heldTail(): number {
    const longest = Math.max(...this.variants.map((variant) => variant.length));
    for (let size = Math.min(this.pending.length, longest - 1); size > 0; size -= 1) {
      const tail = this.pending.slice(-size);
      if (this.variants.some((variant) => variant.startsWith(tail))) return size;
    }
    return 0;
  }

  private take(cut: number): string {
    const out = this.pending.slice(0, cut);
    this.pending = this.pending.slice(cut);
    return out === '' ? '' : this.redact(out);
  }
}
