import type { diffArrays as DiffArrays } from 'diff/lib/diff/array.js';
import { requireOnUse } from '../lib/folded.js';

// The one function, not the package's index (which loads every diff and patch module: 20 files for every command that
// opens memory), and at the first diff (a memory write), not with the daemon.
let diffArrays: typeof DiffArrays | undefined;

/** A unified-style line diff (`-` removed, `+` added, ` ` kept) with `context` kept lines around changes, `…` between. */
export function lineDiff(before: string, after: string, context = 3): string {
  const a = before === '' ? [] : before.split('\n');
  const b = after === '' ? [] : after.split('\n');
  // jsdiff (Myers) gives removals before additions, as in a unified diff.
  diffArrays ??= requireOnUse<{ diffArrays: typeof DiffArrays }>('diff/lib/diff/array.js').diffArrays;
  const ops = diffArrays(a, b).flatMap((change) => change.value.map((line) => ({ kind: change.removed ? '-' : change.added ? '+' : ' ', line })));
  const keep = ops.map((op, index) => op.kind !== ' ' || ops.slice(Math.max(0, index - context), index + context + 1).some((near) => near.kind !== ' '));
  const out: string[] = [];
  let skipped = false;
  ops.forEach((op, index) => {
    if (keep[index]) {
      out.push(`${op.kind}${op.line}`);
      skipped = false;
    } else if (!skipped) {
      out.push('…');
      skipped = true;
    }
  });
  return out.join('\n');
}
