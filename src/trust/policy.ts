/**
 * The provenance policy: which calls a turn holding outside content may make without asking the person. The rule is
 * about where a call's inputs came from, not about the tool's label. A turn is tainted while outside content (mail,
 * web pages, search results, MCP results, sandbox files, hub skills, anything saved from them) is in what the model
 * sees; see docs/SECURITY.md.
 */
import type { Effect, Provenance, ProvenanceVerdict } from '../tools/effects.js';

/** Memory files that are always in the system prompt: writing them shapes every later turn. */
export const PROMPT_FILES: ReadonlySet<string> = new Set(['persona.md', 'profile.md']);

/**
 * Decides one call in a tainted turn. Allowed without asking: reading; fetching (GET/HEAD, no body, no headers) an
 * address that appears verbatim in what the person wrote or in the outside content already read (a link in a search
 * result); searching for words the person or the outside content wrote verbatim; saving to a memory file that is not
 * always in the prompt (the file is labelled as outside content); a reminder (text sent to the person only). Asked:
 * every other way out (an address or query the model composed, a body, mail, MCP, a sandbox with network, custom
 * tools), and every change to what runs unattended or shapes every prompt (jobs, skills, persona.md, profile.md,
 * installs).
 */
export function checkEffects(effects: readonly Effect[], provenance: Provenance | undefined): ProvenanceVerdict {
  const lines: string[] = [];
  let ask = false;
  for (const effect of effects) {
    const verdict = checkEffect(effect, provenance);
    if (verdict.ask) ask = true;
    lines.push(...verdict.lines);
  }
  return { ask, lines };
}

function checkEffect(effect: Effect, provenance: Provenance | undefined): ProvenanceVerdict {
  switch (effect.kind) {
    case 'egress':
      return checkEgress(effect, provenance);
    case 'persist':
      return checkPersist(effect);
    case 'install':
      return { ask: true, lines: [`It installs ${effect.what ?? 'new code or instructions'}.`] };
  }
}

function checkEgress(effect: Extract<Effect, { kind: 'egress' }>, provenance: Provenance | undefined): ProvenanceVerdict {
  const lines: string[] = [];
  let ask = false;
  if (effect.url !== undefined) {
    const origin = originOf(effect.url, provenance, urlVariants);
    lines.push(`The address ${effect.url} ${describeOrigin(origin)}.`);
    const simple = effect.method === undefined || effect.method === 'GET' || effect.method === 'HEAD';
    if (origin === 'model' || !simple || effect.carriesData === true) ask = true;
    if (effect.carriesData === true) lines.push('It sends a body or headers along.');
  }
  if (effect.query !== undefined) {
    const origin = originOf(effect.query, provenance, (text) => [normalizeWords(text)], normalizeWords);
    lines.push(`The search "${effect.query}" ${describeOrigin(origin)}.`);
    if (origin === 'model') ask = true;
  }
  if (effect.to !== undefined) {
    // Mail always asks in a tainted turn; the person sees where each recipient came from.
    ask = true;
    for (const recipient of effect.to) lines.push(`Recipient ${recipient} ${describeOrigin(originOf(recipient, provenance, (text) => [text.toLowerCase()], (text) => text.toLowerCase()))}.`);
  }
  if (effect.url === undefined && effect.query === undefined && effect.to === undefined) {
    ask = true;
    lines.push(`It can send data out (${effect.what ?? 'a tool whose destination cannot be checked'}).`);
  }
  return { ask, lines };
}

function checkPersist(effect: Extract<Effect, { kind: 'persist' }>): ProvenanceVerdict {
  switch (effect.target) {
    case 'memory': {
      const file = effect.path?.replace(/^\.?\/+/, '') ?? '';
      if (PROMPT_FILES.has(file)) return { ask: true, lines: [`It changes ${file}, which is in the prompt of every conversation.`] };
      // Allowed: the file is labelled as outside content and kept out of later prompts until the person clears it.
      return { ask: false, lines: [] };
    }
    case 'job':
      if (effect.runs === false) return { ask: false, lines: [] };
      return { ask: true, lines: [`It changes what runs unattended: ${effect.what ?? 'a scheduled job'}.`] };
    case 'skill':
      return { ask: true, lines: [`It changes what runs unattended: ${effect.what ?? 'a skill'}.`] };
  }
}

type Origin = 'person' | 'outside' | 'model';

function originOf(value: string, provenance: Provenance | undefined, variants: (text: string) => string[], normalizeText: (text: string) => string = decodeEntities): Origin {
  if (!provenance) return 'model';
  const wanted = variants(value).filter((variant) => variant.length > 0);
  const found = (texts: readonly string[]) => texts.some((text) => {
    const haystack = normalizeText(text);
    return wanted.some((variant) => haystack.includes(variant));
  });
  if (found(provenance.personTexts())) return 'person';
  if (found(provenance.outsideTexts())) return 'outside';
  return 'model';
}

function describeOrigin(origin: Origin): string {
  switch (origin) {
    case 'person':
      return 'is one you wrote';
    case 'outside':
      return 'appears in the outside content that was read';
    case 'model':
      return 'was composed by the model (it appears nowhere you wrote or read)';
  }
}

/** The spellings under which an address may have been written: as given, normalised, without a trailing slash. */
function urlVariants(url: string): string[] {
  const variants = new Set([url.trim()]);
  try {
    const parsed = new URL(url.trim());
    variants.add(parsed.href);
    if (parsed.href.endsWith('/')) variants.add(parsed.href.slice(0, -1));
  } catch {
    // not a URL: only the text as given
  }
  return [...variants];
}

/** Links in HTML-ish text often carry `&amp;` where the address has `&`. */
function decodeEntities(text: string): string {
  return text.includes('&amp;') ? text.replaceAll('&amp;', '&') : text;
}

function normalizeWords(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').trim();
}
