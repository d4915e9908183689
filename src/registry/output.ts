import { redactSecrets } from '../log.js';
import { EXTERNAL_BEGIN, EXTERNAL_END } from '../tools/external.js';
import type { ToolResult } from '../tools/types.js';

/**
 * A result as the model gets it: secrets redacted, the output capped at `limit` characters with a visible note, and
 * never an outside-content envelope left open by the cut (the model would read the note, and anything after it in
 * the turn, as the page's words — or the page's last words as ours). `thirdParty` keeps only what of each segment
 * the model is shown.
 */
export function finalizeResult(result: ToolResult, secrets: readonly string[], limit: number): ToolResult {
  const full = redactSecrets(result.output, secrets);
  const output = full.length > limit ? capOutput(full, limit) : full;
  if (!result.thirdParty) return output === result.output ? result : { ...result, output };
  const kept = keepShown(result.thirdParty.map((segment) => redactSecrets(segment, secrets)), full, full.length > limit ? cutAt(full, limit) : full.length);
  const finalized: ToolResult = { ...result, output };
  if (kept.length > 0) finalized.thirdParty = kept;
  else delete finalized.thirdParty;
  return finalized;
}

/** Cuts `text` to about `limit` characters, closing an envelope the cut leaves open, then says how much was cut. */
export function capOutput(text: string, limit: number): string {
  const at = cutAt(text, limit);
  const kept = text.slice(0, at);
  const closing = openEnvelope(kept) ? `\n${EXTERNAL_END}` : '';
  return `${kept}${closing}\n…[output truncated: ${text.length - at} more characters not shown; ask for a narrower range or a smaller result]`;
}

/** Where to cut: at `limit`, or before a marker the cut would split (half a marker is neither data nor ours). */
function cutAt(text: string, limit: number): number {
  let at = Math.min(limit, text.length);
  for (const marker of [EXTERNAL_BEGIN, EXTERNAL_END]) {
    const start = text.lastIndexOf(marker.slice(0, 3), at - 1);
    if (start >= 0 && text.startsWith(marker, start) && start + markerLength(text, start, marker) > at) at = Math.min(at, start);
  }
  return at;
}

/** The whole marker's length at `start`: the begin marker runs to the end of its `source="…">>>` line. */
function markerLength(text: string, start: number, marker: string): number {
  if (marker === EXTERNAL_END) return marker.length;
  const end = text.indexOf('>>>', start + marker.length);
  return end < 0 ? text.length - start : end + 3 - start;
}

/** True when `text` opens more envelopes than it closes (markers inside outside text are neutralised when wrapped). */
function openEnvelope(text: string): boolean {
  return text.lastIndexOf(EXTERNAL_BEGIN) > text.lastIndexOf(EXTERNAL_END);
}

/** The part of each segment found in `output` before `visible`: what the model actually read of it. */
function keepShown(segments: readonly string[], output: string, visible: number): string[] {
  const kept: string[] = [];
  for (const segment of segments) {
    if (segment.length === 0) continue;
    const start = output.indexOf(segment);
    if (start < 0 || start >= visible) continue;
    kept.push(segment.slice(0, visible - start));
  }
  return kept;
}
