/**
 * The deterministic matcher of standing intents and `trigger.match` (no model): a list of words and phrases
 * separated by commas or `|` (`invoice, "tax return" | Acme`); the text matches when any one appears in it as
 * whole words, case-insensitive, with any whitespace between a phrase's words.
 * Quotes around a phrase are optional. Letters and digits of any script count as word characters.
 */
export interface Phrases {
  /** The phrases as written (trimmed, quotes removed), for listing. */
  readonly terms: readonly string[];
  /** The first phrase found in `text`, or undefined. */
  find(text: string): string | undefined;
}

/** Parses the list; an empty one (nothing but separators) is an error the caller words. */
export function parsePhrases(spec: string): Phrases | undefined {
  const terms = spec.split(/[,|]/).map((term) => term.trim().replace(/^["'“‘]+|["'”’]+$/g, '').trim()).filter((term) => term !== '');
  if (terms.length === 0) return undefined;
  const patterns = terms.map((term) => {
    const words = term.split(/\s+/).map(escape);
    // Word boundaries that know Unicode letters: \b only knows ASCII.
    return new RegExp(`(?<![\\p{L}\\p{N}_])${words.join('\\s+')}(?![\\p{L}\\p{N}_])`, 'iu');
  });
  return {
    terms,
    find(text) {
      const index = patterns.findIndex((pattern) => pattern.test(text));
      return index < 0 ? undefined : terms[index];
    },
  };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
