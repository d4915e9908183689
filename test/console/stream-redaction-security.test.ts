// A streamed answer is redacted piece by piece without letting a secret through when the model's pieces split it,
// in any place and any form the redactor knows; ordinary text is not held back.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactorFor } from '../../src/lib/redaction.js';
import { StreamRedactor } from '../../src/lib/stream-redaction.js';

const SECRETS = ['sk-test-0123456789abcdef', 'p@ss"word\\x', 'tg-123456:AAH-token'];
const redact = (text: string) => redactorFor(SECRETS).text(text);

function streamed(pieces: readonly string[]): string[] {
  const stream = new StreamRedactor(SECRETS, redact);
  const out = pieces.map((piece) => stream.push(piece));
  out.push(stream.flush());
  return out;
}

describe('streamed redaction', () => {
  it('never shows a secret, or a piece of one, however the text is cut', () => {
    fc.assert(fc.property(
      fc.array(fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom(...SECRETS, JSON.stringify(SECRETS[1]).slice(1, -1))), { maxLength: 8 }),
      fc.array(fc.nat(40), { maxLength: 10 }),
      (parts, cuts) => {
        const text = parts.join(' ');
        const points = [...new Set(cuts.map((cut) => Math.min(cut, text.length)))].sort((a, b) => a - b);
        const pieces = [...points, text.length].map((end, index) => text.slice(index === 0 ? 0 : points[index - 1], end));
        const shown = streamed(pieces).join('');
        expect(shown).toBe(redact(text));
        for (const secret of SECRETS) expect(shown).not.toContain(secret);
      },
    ), { numRuns: 500 });
  });

  it('each piece it shows holds no more than a secret\'s first characters back', () => {
    const out = streamed(['Good ', 'morning, ', 'Ada! Your key: sk', '-test-0123', '456789abcdef done']);
    expect(out.slice(0, 3)).toEqual(['Good ', 'morning, ', 'Ada! Your key: ']);
    expect(out.join('')).toBe('Good morning, Ada! Your key: [REDACTED] done');
    expect(out.join('')).not.toContain('sk-test');
  });
});
