/**
 * A text made from outside content, spoken later by the daemon (a reminder written while a page was open, a job run
 * that read mail), never passes for the daemon's own words: it is said to come from outside, naming the sources,
 * and every link the person did not write is shown inert — `hxxps://evil[.]example/x`, `someone[@]evil[.]example` —
 * so a "confirm within 1 hour at <link>" planted by a page cannot be one tap away. Links are found by linkify-it
 * (bare domains and e-mail addresses too, which chat apps turn into links), not by a hand-written pattern.
 */
import type LinkifyIt from 'linkify-it';
import { requireOnUse } from '../lib/folded.js';
import { addressesIn, requestAddress } from '../net/addresses.js';

let linkify: LinkifyIt | undefined;

/**
 * Everything a chat app would make clickable: scheme links, and bare domains and e-mail addresses under any top-level
 * domain there is (the `tlds` list; linkify-it alone knows only the common ones).
 */
function finder(): LinkifyIt {
  if (!linkify) {
    const tlds = requireOnUse<string[]>('tlds');
    // Loaded at the first text searched, not with the daemon: most starts search none.
    const Linkify = requireOnUse<typeof LinkifyIt>('linkify-it');
    linkify = new Linkify({}, { fuzzyLink: true, fuzzyEmail: true, fuzzyIP: true }).tlds(tlds, true);
  }
  return linkify;
}

/** The text as delivered: a first line saying where it came from, then the text with links made inert. */
export function renderOutside(text: string, sources: readonly string[], personText?: string): string {
  const keep = new Set(personText !== undefined ? addressesIn(personText) : []);
  return `${outsideLine(sources)}\n${inertLinks(text, keep)}`;
}

/** "↪ From outside content (a web page at example.org, mail in me@x/INBOX): not my own words; links shown inert." */
export function outsideLine(sources: readonly string[]): string {
  const named = [...new Set(sources.map(describeSource))];
  const shown = named.length > 3 ? `${named.slice(0, 3).join(', ')} and ${named.length - 3} more` : named.join(', ');
  return `↪ From outside content (${shown || 'an outside source'}): not my own words; links are shown inert.`;
}

/** How an outside source is named to the person. */
export function describeSource(source: string): string {
  const clean = source.replace(/[\r\n]+/g, ' ').trim();
  const web = /^(?:http:)?(https?:\/\/[^\s]+)/.exec(clean);
  if (web?.[1] !== undefined) return `a web page at ${hostOf(web[1])}`;
  if (clean.startsWith('web_search:')) return 'web search results';
  if (clean.startsWith('email:')) return `mail in ${clean.slice('email:'.length).slice(0, 80)}`;
  if (clean.startsWith('mcp:') || clean.startsWith('MCP server')) return `the MCP server ${clean.replace(/^mcp:|^MCP servers? /, '').split(/\s/)[0] ?? ''}`.trim();
  if (clean.startsWith('memory:')) return `a memory file made from outside content (${clean.slice('memory:'.length).split(/\s/)[0] ?? ''})`;
  if (clean.startsWith('hub:')) return 'a skill from a hub';
  if (/^forwarded/i.test(clean)) return 'a forwarded message';
  return clean.slice(0, 80);
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url.slice(0, 60);
  }
}

/**
 * Markdown links become their label and their address written out; then every link, bare domain and e-mail
 * address is made inert, except the addresses in `keep` (the person's own).
 */
export function inertLinks(text: string, keep: ReadonlySet<string> = new Set()): string {
  // `[label](address)` and `![alt](address)`: the label could hide where the link goes.
  const unmasked = text.replace(/!?\[([^\]\n]*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"\n]*")?\s*\)/g, (_whole, label: string, address: string) => (label.trim() === '' || label === address ? address : `${label} (${address})`))
    .replace(/<((?:https?|mailto):[^>\s]+)>/gi, '$1');
  const matches = finder().match(unmasked) ?? [];
  let out = '';
  let at = 0;
  for (const match of matches) {
    out += unmasked.slice(at, match.index);
    const address = requestAddress(match.url);
    out += address !== undefined && keep.has(address) ? match.raw : inert(match.raw, match.schema);
    at = match.lastIndex;
  }
  return out + unmasked.slice(at);
}

function inert(raw: string, schema: string): string {
  if (schema === 'mailto:') {
    const address = raw.replace(/^mailto:/i, '');
    const at = address.lastIndexOf('@');
    return `${address.slice(0, at)}[@]${address.slice(at + 1).replaceAll('.', '[.]')}`;
  }
  const scheme = /^([a-z][a-z0-9+.-]*:)?(\/\/)?/i.exec(raw)?.[0] ?? '';
  const rest = raw.slice(scheme.length);
  const slash = rest.search(/[/?#]/);
  const host = slash < 0 ? rest : rest.slice(0, slash);
  const path = slash < 0 ? '' : rest.slice(slash);
  const defangedScheme = scheme.replace(/^http/i, (word) => (word === 'HTTP' ? 'HXXP' : 'hxxp'));
  return `${defangedScheme}${host.replaceAll('.', '[.]')}${path}`;
}
