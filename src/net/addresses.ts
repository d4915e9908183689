/**
 * Addresses and search words as the gate compares them. An address vouches only whole, as one link in third parties'
 * words, compared after the normalisation the request itself applies (WHATWG URL parsing: scheme and host case,
 * default ports, dot segments, IDN to punycode, the fragment dropped because it is never sent) — never looser: no
 * prefixes, no substrings, no case folding of the path or query. Links are found by linkify-it (markdown-it's), not
 * by a hand-written pattern.
 */
import type LinkifyIt from 'linkify-it';
import { requireOnUse } from '../lib/folded.js';


let linkify: LinkifyIt | undefined;

/** Only links written with their scheme: `example.com/x` is not an address anyone gave. */
function finder(): LinkifyIt {
  // Loaded at the first text searched, not with the daemon: most starts search none.
  linkify ??= new (requireOnUse<typeof LinkifyIt>('linkify-it'))({}, { fuzzyLink: false, fuzzyEmail: false, fuzzyIP: false });
  return linkify;
}

/** The address as the server will be asked for it, or undefined for anything but http(s). */
export function requestAddress(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
  parsed.hash = '';
  return parsed.href;
}

/**
 * The whole http(s) links in a text, each as a request would send it. A link written in HTML with `&amp;` is also
 * read with `&` (the address a browser would follow).
 */
export function addressesIn(text: string): string[] {
  if (!text.includes('://')) return [];
  const found = new Set<string>();
  for (const match of finder().match(text) ?? []) {
    if (match.schema !== 'http:' && match.schema !== 'https:') continue;
    for (const raw of match.raw.includes('&amp;') ? [match.raw, match.raw.replaceAll('&amp;', '&')] : [match.raw]) {
      const address = requestAddress(raw);
      if (address !== undefined) found.add(address);
    }
  }
  return [...found];
}

/**
 * What a vouching tool's third-party text vouches for. An address the call's own arguments held is an echo (a search
 * engine repeating the query, a server answering with the URL it was asked for): the model's words, not a third
 * party's, so it is left out — whether the argument held it as a link or as text without its scheme.
 */
export function vouchedBy(segments: readonly string[], params: Record<string, unknown>): { urls: string[]; text: string } {
  const text = segments.join('\n');
  const argumentTexts = stringsIn(params);
  const echoed = new Set(argumentTexts.flatMap((value) => addressesIn(value)));
  const lowered = argumentTexts.map((value) => value.toLowerCase());
  const urls = addressesIn(text).filter((address) => {
    if (echoed.has(address)) return false;
    const bare = address.replace(/^https?:\/\//, '').toLowerCase();
    return !lowered.some((value) => value.includes(bare) || (bare.endsWith('/') && value.includes(bare.slice(0, -1))));
  });
  return { urls, text };
}

/** Every string in a value (arguments are small JSON), keys included. */
function stringsIn(value: unknown, out: string[] = [], depth = 0): string[] {
  if (depth > 64) return out;
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsIn(item, out, depth + 1);
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      out.push(key);
      stringsIn(item, out, depth + 1);
    }
  }
  return out;
}

/** Runs of at most this many words are queries a text can vouch for; a longer query counts as composed. */
export const MAX_QUERY_WORDS = 16;

/** A text's words as a query may quote them: split on white space, punctuation at either end dropped. */
export function wordsOf(text: string): string[] {
  const words: string[] = [];
  for (const raw of text.split(/\s+/)) {
    const word = raw.replace(/^[\p{P}\p{S}]+|[\p{P}\p{S}]+$/gu, '');
    if (word !== '') words.push(word);
  }
  return words;
}

/**
 * True when `query` is a run of consecutive words of `text`, exactly as written there or all in lower case (the two
 * spellings the leak budget counts: letting the model choose the case of each letter would let it choose bits).
 */
export function quotes(text: string, query: string): boolean {
  const wanted = query.trim().split(/\s+/);
  if (wanted.length === 0 || wanted[0] === '' || wanted.length > MAX_QUERY_WORDS) return false;
  const lower = wanted.every((word) => word === word.toLowerCase());
  const words = wordsOf(text);
  outer: for (let start = 0; start + wanted.length <= words.length; start += 1) {
    for (let index = 0; index < wanted.length; index += 1) {
      const word = words[start + index] ?? '';
      const want = wanted[index] ?? '';
      if (word !== want && !(lower && word.toLowerCase() === want)) continue outer;
    }
    return true;
  }
  return false;
}

/** How many distinct queries a text lets through unasked, at most: each run of 1..MAX_QUERY_WORDS words, in two spellings. */
export function queryChoices(text: string): number {
  const count = wordsOf(text).length;
  let runs = 0;
  for (let length = 1; length <= Math.min(MAX_QUERY_WORDS, count); length += 1) runs += count - length + 1;
  return runs * 2;
}

/**
 * True when every word of `text` (and every address in it) is one the person wrote: saved from a turn that holds
 * outside content, it still says nothing the person did not say — "Pay rent" from "remind me to pay rent monthly" —
 * so it needs no outside label. A word or link the person never wrote (a page's phishing line) makes it outside.
 */
export function personWrote(text: string, personTexts: readonly string[]): boolean {
  const theirs = new Set(personTexts.flatMap((written) => wordsOf(written).map((word) => word.toLowerCase())));
  const addresses = new Set(personTexts.flatMap((written) => addressesIn(written)));
  if (addressesIn(text).some((address) => !addresses.has(address))) return false;
  const words = wordsOf(text);
  return words.length > 0 && words.every((word) => theirs.has(word.toLowerCase()));
}
