/**
 * The provenance policy: which calls a turn holding outside content may make without asking the person. The rule is
 * about where a call's inputs came from, not about the tool's label. A turn is tainted while outside content (mail,
 * web pages, search results, MCP results, sandbox files, hub skills, anything saved from them) is in what the model
 * sees; see docs/SECURITY.md.
 */
import type { Effect, Provenance, ProvenanceVerdict } from '../tools/effects.js';
import { addressesIn, queryChoices, quotes, requestAddress } from '../net/addresses.js';

/** Memory files that are always in the system prompt: writing them shapes every later turn. */
export const PROMPT_FILES: ReadonlySet<string> = new Set(['persona.md', 'profile.md']);

/**
 * Decides one call in a tainted turn. Allowed without asking, and charged to the leak budget the bits its choice
 * could carry: fetching (GET/HEAD, no body, no headers) an address that appears whole in what the person wrote or
 * in third parties' words already read (a link in a page, a search result, a mail); searching for a run of words the
 * person or a third party wrote. Allowed free: reading; saving to a memory file that is not always in the prompt
 * (the file is labelled as outside content); a reminder (text to the person only, said to come from outside when it
 * is delivered). Asked: every other way out (an address or query the model composed, a body, mail, MCP, a sandbox
 * with network, custom tools), every change to what runs unattended or shapes every prompt (jobs, skills,
 * persona.md, profile.md, installs), and changing or deleting files the workspace held before the turn.
 */
export function checkEffects(effects: readonly Effect[], provenance: Provenance | undefined): ProvenanceVerdict {
  const lines: string[] = [];
  let ask = false;
  let bits = 0;
  const choices = new Choices(provenance);
  let owner = effects.length > 0;
  for (const effect of effects) {
    const verdict = checkEffect(effect, choices);
    if (verdict.ask) ask = true;
    bits += verdict.bits;
    lines.push(...verdict.lines);
    owner &&= verdict.owner === true;
  }
  return { ask, lines, bits: ask ? 0 : bits, ...(owner ? { owner } : {}) };
}

function checkEffect(effect: Effect, choices: Choices): ProvenanceVerdict {
  switch (effect.kind) {
    case 'egress':
      return checkEgress(effect, choices);
    case 'persist':
      return checkPersist(effect);
    case 'install':
      return { ask: true, lines: [`It installs ${effect.what ?? 'new code or instructions'}.`], bits: 0 };
    case 'modify':
      return checkModify(effect, choices);
  }
}

function checkEgress(effect: Extract<Effect, { kind: 'egress' }>, choices: Choices): ProvenanceVerdict {
  const lines: string[] = [];
  let ask = false;
  let bits = 0;
  if (effect.url !== undefined) {
    const origin = choices.originOfAddress(effect.url);
    lines.push(`The address ${effect.url} ${describeOrigin(origin)}.`);
    const simple = effect.method === undefined || effect.method === 'GET' || effect.method === 'HEAD';
    if (origin === 'model' || !simple || effect.carriesData === true) ask = true;
    else bits += Math.log2(choices.addressCount() + 1);
    if (effect.carriesData === true) lines.push('It sends a body or headers along.');
  }
  if (effect.query !== undefined) {
    const origin = choices.originOfQuery(effect.query);
    lines.push(`The search "${effect.query}" ${describeOrigin(origin)}.`);
    if (origin === 'model') ask = true;
    else bits += Math.log2(choices.queryCount() + 1);
  }
  if (effect.to !== undefined) {
    // Mail always asks in a tainted turn; the person sees where each recipient came from.
    ask = true;
    for (const recipient of effect.to) lines.push(`Recipient ${recipient} ${describeOrigin(choices.originOfRecipient(recipient))}.`);
  }
  if (effect.url === undefined && effect.query === undefined && effect.to === undefined) {
    ask = true;
    lines.push(`It can send data out (${effect.what ?? 'a tool whose destination cannot be checked'}).`);
  }
  return { ask, lines, bits };
}

function checkPersist(effect: Extract<Effect, { kind: 'persist' }>): ProvenanceVerdict {
  switch (effect.target) {
    case 'memory': {
      const file = effect.path?.replace(/^\.?\/+/, '') ?? '';
      if (PROMPT_FILES.has(file)) return { ask: true, lines: [`It changes ${file}, which is in the prompt of every conversation.`], bits: 0 };
      // Allowed: the file is labelled as outside content and kept out of later prompts until the person clears it.
      return { ask: false, lines: [], bits: 0 };
    }
    case 'job':
      if (effect.runs === false) return { ask: false, lines: [], bits: 0 };
      return { ask: true, lines: [`It changes what runs unattended: ${effect.what ?? 'a scheduled job'}.`], bits: 0 };
    case 'skill':
      return { ask: true, lines: [`It changes what runs unattended: ${effect.what ?? 'a skill'}.`], bits: 0 };
  }
}

/**
 * A file the person named (its path, with a dot or a slash so that it reads as a file, as a run of words of what
 * they wrote: "notes.txt", not "notes") may be changed; otherwise only an explicit call, and only with a yes. An
 * implicit one stays a guest: new files only (src/sandbox/guest.ts).
 */
function checkModify(effect: Extract<Effect, { kind: 'modify' }>, choices: Choices): ProvenanceVerdict {
  if (effect.path !== undefined && /[./]/.test(effect.path) && choices.personWrote(effect.path)) {
    return { ask: false, lines: [`The file ${effect.path} is one the person named.`], bits: 0, owner: true };
  }
  if (!effect.explicit) return { ask: false, lines: [], bits: 0 };
  return { ask: true, lines: [`It may change or delete files already in the workspace${effect.path ? ` (${effect.path})` : ''}: ${effect.what ?? 'files the person had before this turn'}.`], bits: 0, owner: true };
}

type Origin = 'person' | 'outside' | 'model';

/**
 * The destinations and queries a tainted turn may choose among without asking, read from the provenance on first
 * use: the addresses the person wrote and those third parties' words vouch for, and the runs of words either wrote.
 */
class Choices {
  private addresses: { person: Set<string>; outside: Set<string> } | undefined;

  constructor(private readonly provenance: Provenance | undefined) {}

  originOfAddress(url: string): Origin {
    const address = requestAddress(url);
    if (address === undefined) return 'model';
    const { person, outside } = this.addressSets();
    if (person.has(address)) return 'person';
    if (outside.has(address)) return 'outside';
    return 'model';
  }

  /** Every address a fetch could choose unasked (the leak budget charges log2 of this, plus one for "none"). */
  addressCount(): number {
    const { person, outside } = this.addressSets();
    let count = person.size;
    for (const address of outside) if (!person.has(address)) count += 1;
    return count;
  }

  personWrote(words: string): boolean {
    return this.provenance?.personTexts().some((text) => quotes(text, words)) ?? false;
  }

  originOfQuery(query: string): Origin {
    if (!this.provenance) return 'model';
    if (this.provenance.personTexts().some((text) => quotes(text, query))) return 'person';
    if (this.provenance.vouched().some((vouched) => quotes(vouched.text, query))) return 'outside';
    return 'model';
  }

  queryCount(): number {
    if (!this.provenance) return 0;
    let count = 0;
    for (const text of this.provenance.personTexts()) count += queryChoices(text);
    for (const vouched of this.provenance.vouched()) count += queryChoices(vouched.text);
    return count;
  }

  /** Only for the question: a recipient always asks, whoever wrote it. */
  originOfRecipient(recipient: string): Origin {
    if (!this.provenance) return 'model';
    const wanted = recipient.toLowerCase();
    if (this.provenance.personTexts().some((text) => text.toLowerCase().includes(wanted))) return 'person';
    if (this.provenance.vouched().some((vouched) => vouched.text.toLowerCase().includes(wanted))) return 'outside';
    return 'model';
  }

  private addressSets(): { person: Set<string>; outside: Set<string> } {
    if (this.addresses) return this.addresses;
    const person = new Set<string>();
    const outside = new Set<string>();
    if (this.provenance) {
      for (const text of this.provenance.personTexts()) for (const address of addressesIn(text)) person.add(address);
      for (const vouched of this.provenance.vouched()) for (const address of vouched.urls) outside.add(address);
    }
    this.addresses = { person, outside };
    return this.addresses;
  }
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
