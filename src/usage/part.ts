import type { Config } from '../config/schema.js';
import type { Database } from '../db/database.js';
import type { Part } from '../part.js';
import type { LlmGate } from '../turns/types.js';
import { createUsageRecorder, type OutsideCall } from './record.js';
import { formatNumber } from '../lib/numbers.js';
import { formatUsageToday, personTokensToday, usageOfConversation, usageToday, type UsageToday } from './usage.js';
import { currentPerson } from '../lib/person-scope.js';

/**
 * The daily token budget, checked before every LLM call (jobs included), and `/usage`. The agent writes each
 * step's tokens to its turn's row with the step's messages (not only when the turn ends), so the gate sees a long
 * turn's spending too.
 */
export function createUsagePart(deps: { config: Config; db: Database; now?: () => Date }): {
  gate: LlmGate;
  record: (call: OutsideCall) => void;
  /** Today's use against the budget, for the parts that show it (`/status`, the status endpoint). */
  today: (at?: Date) => UsageToday;
  part: Part;
} {
  const { config, db } = deps;
  const now = deps.now ?? (() => new Date());
  const gate: LlmGate = () => {
    // A household's person with a budget of their own: over it, only they are refused (lib/person-scope.ts).
    const person = currentPerson();
    if (person?.dailyTokens !== undefined && person.dailyTokens > 0) {
      const used = personTokensToday(db, config, person.name, now());
      if (used >= person.dailyTokens) {
        return `You have used your tokens for today (${formatNumber(used)} of ${formatNumber(person.dailyTokens)}, people.${person.name}.budget.daily_tokens), so I will not answer again until midnight (${config.timezone}). Ask the owner to raise it if you need more today.`;
      }
    }
    const budget = config.llm.daily_token_budget;
    if (budget <= 0) return undefined;
    const today = usageToday(db, config, now());
    if (today.totalTokens < budget) return undefined;
    return `I have used today's token budget (${formatNumber(today.totalTokens)} of ${formatNumber(budget)} tokens, llm.daily_token_budget), so I will not call the model again until midnight (${config.timezone}). Raise the budget in the config to continue today.`;
  };
  const part: Part = {
    name: 'usage',
    commands: new Map([['usage', {
      description: "today's token use, cost estimate and budget",
      async run({ conversationId }) {
        const conversation = usageOfConversation(db, config.llm.prices, conversationId);
        // In a household a person sees their own day (the command runs as its sender), not everyone's.
        const person = currentPerson();
        if (person) {
          const used = personTokensToday(db, config, person.name, now());
          const budget = person.dailyTokens !== undefined && person.dailyTokens > 0 ? ` of your ${formatNumber(person.dailyTokens)}` : '';
          return `Today you used ${formatNumber(used)} tokens${budget}.\nThis conversation: ${formatNumber(conversation.totalTokens)} tokens in ${conversation.turns} turn${conversation.turns === 1 ? '' : 's'}.`;
        }
        return `${formatUsageToday(usageToday(db, config, now()))}\nThis conversation: ${formatNumber(conversation.totalTokens)} tokens in ${conversation.turns} turn${conversation.turns === 1 ? '' : 's'}.`;
      },
    }]]),
  };
  return { gate, record: createUsageRecorder(db), today: (at = now()) => usageToday(db, config, at), part };
}
