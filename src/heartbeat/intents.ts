import type { Config } from '../config/schema.js';
import type { Delivered, Delivery } from '../delivery/types.js';
import { parsePhrases } from '../lib/phrases.js';
import type { Result } from '../lib/result.js';
import type { Logger } from '../log.js';
import { IntentStore, type Intent } from './intent-store.js';

/** Where a text came from: the person's own message, or outside content (a mail, a trigger) with its source. */
export type Seen = { from: 'person'; chat: string } | { from: 'outside'; source: string };

export interface Fired {
  intent: Intent;
  phrase: string;
  delivered: Delivered;
}

/**
 * Standing intents: "when X comes up, remind me of Y". Made only by the person (`/when`, or the `intent_create` tool
 * in a turn holding no outside content); matched without a model (src/lib/phrases.ts) against the person's messages,
 * the heartbeat's new items and each new trigger. A match only ever sends the person a reminder in their own words
 * (the phrase they chose and what they asked to be reminded of — none of the matched text), through the one
 * delivery path: no tool call, no turn. Each fires at most once per cooldown, a fixed number of times, until it
 * expires or is cancelled.
 */
export class Intents {
  readonly store: IntentStore;

  constructor(private readonly deps: { store: IntentStore; config: Pick<Config, 'intents'>; delivery: Delivery; log: Logger; now: () => number }) {
    this.store = deps.store;
  }

  create(input: { when: string; remind: string; origin?: { channel: string; chatId: string } | undefined }): Result<Intent> {
    const when = input.when.trim();
    const remind = input.remind.trim();
    if (parsePhrases(when) === undefined) return { success: false, error: 'Say what to watch for: words or phrases separated by commas (e.g. "invoice, tax return").' };
    if (remind === '') return { success: false, error: 'Say what to remind the person of when it comes up.' };
    if (when.length > 500 || remind.length > 1000) return { success: false, error: 'Keep it short: at most 500 characters to watch for and 1000 to remind.' };
    const settings = this.deps.config.intents;
    const now = this.deps.now();
    const origin = input.origin;
    const target = this.deps.delivery.targetFor(origin, undefined);
    const intent = this.store.insert({
      match: when, remind, target, origin, cooldownS: settings.cooldown, firesLeft: settings.fires, expiresAt: now + settings.expire_after * 1000, createdAt: now,
    });
    this.deps.log.info({ intent: intent.id }, 'intent created');
    return { success: true, value: intent };
  }

  /** Matches a text against every active intent and sends each one that fires its reminder. Contract: never throws. */
  async check(text: string, seen: Seen): Promise<Fired[]> {
    const fired: Fired[] = [];
    try {
      const now = this.deps.now();
      for (const intent of this.store.active(now)) {
        // The person's message fires only the intents of the chat it was written in.
        if (seen.from === 'person' && intent.origin !== undefined && seen.chat !== `${intent.origin.channel}:${intent.origin.chatId}` && seen.chat !== intent.target) continue;
        const phrase = parsePhrases(intent.match)?.find(text);
        if (phrase === undefined || !this.store.fire(intent.id, now)) continue;
        const where = seen.from === 'person' ? 'your message' : `new ${seen.source}`;
        const delivered = await this.deps.delivery.deliver(intent.target, { text: `🔔 "${phrase}" came up (${where}). You asked me to remind you: ${intent.remind}` }, { kind: 'reminder', id: intent.id, personText: intent.remind });
        fired.push({ intent, phrase, delivered });
      }
    } catch (error) {
      this.deps.log.error({ err: error }, 'intents: matching failed');
    }
    return fired;
  }
}

/** One line per intent, for /intents, intent_list and `familiar intents`. */
export function describeIntent(intent: Intent, timeZone: string): string {
  const expires = new Date(intent.expiresAt).toLocaleDateString('en-CA', { timeZone });
  return `${intent.id}: when "${intent.match}" comes up → ${intent.remind} (${intent.firesLeft} fire(s) left, expires ${expires})`;
}
