/**
 * Redaction of text that arrives in pieces (a streamed answer): redacting each piece alone would let a secret split
 * across two pieces through. The tail that could still be the start of a secret is held back until the next piece
 * (or `flush`), and a cut is never made inside a secret: a cut is good when redacting both sides apart gives the
 * same text as redacting them together.
 */
export class StreamRedactor {
  private pending = '';
  private readonly hold: number;
  private readonly redact: (text: string) => string;

  /** `secrets`: the configured values (their length sets how much is held back); `redact`: the whole-text redactor. */
  constructor(secrets: readonly string[], redact: (text: string) => string) {
    // Twice the longest value: the redactor also catches encoded forms (JSON- or URL-escaped), which are longer.
    this.hold = secrets.length === 0 ? 0 : 2 * Math.max(...secrets.map((secret) => secret.length));
    this.redact = redact;
  }

  /** The part of the text so far that is safe to show now, redacted; the rest waits for more. */
  push(text: string): string {
    this.pending += text;
    if (this.hold === 0) return this.take(this.pending.length);
    let cut = this.pending.length - this.hold;
    if (cut <= 0) return '';
    const whole = this.redact(this.pending);
    while (cut > 0 && this.redact(this.pending.slice(0, cut)) + this.redact(this.pending.slice(cut)) !== whole) cut -= 1;
    return this.take(cut);
  }

  /** Whatever is held back, redacted (the answer ended, or a tool call starts). */
  flush(): string {
    return this.take(this.pending.length);
  }

  /** Forgets what is held back (the answer starts over). */
  reset(): void {
    this.pending = '';
  }

  private take(cut: number): string {
    const out = this.pending.slice(0, cut);
    this.pending = this.pending.slice(cut);
    return out === '' ? '' : this.redact(out);
  }
}
