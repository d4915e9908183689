/** A unified-style line diff (`-` removed, `+` added, ` ` kept) with `context` kept lines around changes. */
export function lineDiff(before: string, after: string, context = 3): string {
  const a = before === '' ? [] : before.split('\n');
  const b = after === '' ? [] : after.split('\n');
  // LCS is quadratic; for very large files show the whole change instead of a slow diff.
  if (a.length * b.length > 4_000_000) return [...a.map((line) => `-${line}`), ...b.map((line) => `+${line}`)].join('\n');
  const rows = a.length + 1;
  const cols = b.length + 1;
  const lcs = new Uint32Array(rows * cols);
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      lcs[i * cols + j] = a[i] === b[j] ? (lcs[(i + 1) * cols + j + 1] ?? 0) + 1 : Math.max(lcs[(i + 1) * cols + j] ?? 0, lcs[i * cols + j + 1] ?? 0);
    }
  }
  const ops: Array<{ kind: ' ' | '-' | '+'; line: string }> = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      ops.push({ kind: ' ', line: a[i] ?? '' });
      i += 1;
      j += 1;
    } else if (i < a.length && (j >= b.length || (lcs[(i + 1) * cols + j] ?? 0) >= (lcs[i * cols + j + 1] ?? 0))) {
      // Removals before additions, as in a unified diff.
      ops.push({ kind: '-', line: a[i] ?? '' });
      i += 1;
    } else {
      ops.push({ kind: '+', line: b[j] ?? '' });
      j += 1;
    }
  }
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
