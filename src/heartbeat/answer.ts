import { z } from 'zod/v3';
import { wrapExternal } from '../tools/external.js';
import type { ProbeItem } from './types.js';

/** An item and the probe that found it. */
export interface NewItem extends ProbeItem {
  probe: string;
}

/**
 * What a heartbeat turn ends with, parsed strictly: `{"nothing_to_report": true}` is the only way to say nothing
 * (never inferred from words like "nothing new"), so a model that answers anything else has its answer delivered.
 */
export type BeatAnswer = { report: string } | { nothing: true };

/** Built per answer, not kept: zod binds its methods to every instance (see config/schema.ts). */
const answerSchema = () => z.union([
  z.strictObject({ nothing_to_report: z.literal(true), report: z.undefined().optional() }),
  z.strictObject({ report: z.string().trim().min(1), nothing_to_report: z.literal(false).optional() }),
]);

/** The instructions added to the turn's system prompt. */
export const BEAT_INSTRUCTIONS = [
  'This is the heartbeat: a check that runs unattended while the person is away; nobody can answer questions.',
  'The message lists what changed since the last check. Decide whether any of it is worth telling the person now.',
  'Answer with exactly one JSON object and nothing else:',
  '{"report": "<a short message for the person>"} when something is worth telling them, or',
  '{"nothing_to_report": true} when nothing is.',
].join('\n');

/** The turn's message: the new items, those carrying third parties' words wrapped as outside content. */
export function beatMessage(items: readonly NewItem[]): string {
  const own = items.filter((item) => item.outside === undefined).map((item) => `- ${item.text}`);
  const lines = [`New since the last check (${items.length}):`, ...own];
  const sources = [...new Set(items.flatMap((item) => (item.outside !== undefined ? [item.outside] : [])))];
  for (const source of sources) {
    const outside = items.filter((item) => item.outside === source).map((item) => `- ${item.text}`).join('\n');
    lines.push(wrapExternal(source, outside));
  }
  return lines.join('\n');
}

/** The answer as the heartbeat reads it: strict JSON (a fenced block is accepted), else the whole text is the report. */
export function parseBeatAnswer(text: string): BeatAnswer {
  const trimmed = text.trim();
  const fenced = /^```(?:json)?\s*([\s\S]*?)\s*```$/.exec(trimmed)?.[1] ?? trimmed;
  let parsed: unknown;
  try {
    parsed = JSON.parse(fenced);
  } catch {
    return { report: trimmed };
  }
  const answer = answerSchema().safeParse(parsed);
  if (!answer.success) return { report: trimmed };
  return answer.data.nothing_to_report === true ? { nothing: true } : { report: answer.data.report ?? trimmed };
}
