// A time limit that outlives a collection (src/lib/abort.ts). On Node 20, AbortSignal.any over AbortSignal.timeout
// never aborts once V8 has collected the timeout's signal: a sandbox step given a time limit that way could hang for
// good. Checked in a child Node with real collections, on the built module (`npm run build` first): in the test
// runner's own process something else may keep the signal alive.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { deadline } from '../../src/lib/abort.js';

/** Whether `make` (an expression over `deadline`) gives a signal that has aborted 200 ms after a 50 ms limit, with two collections 10 ms in. */
function abortsAfterCollection(make: string): boolean {
  const abort = pathToFileURL(path.resolve('dist/lib/abort.js')).href;
  const script = `const { deadline } = await import(${JSON.stringify(abort)}); const signal = ${make}; setTimeout(() => { gc(); gc(); }, 10); setTimeout(() => console.log(JSON.stringify({ aborted: signal.aborted, reason: signal.reason?.name })), 200);`;
  const child = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { encoding: 'utf8' });
  if (child.status !== 0) throw new Error(child.stderr);
  const { aborted, reason } = JSON.parse(child.stdout) as { aborted: boolean; reason?: string };
  if (aborted) expect(reason).toBe('TimeoutError');
  return aborted;
}

describe('deadline', () => {
  it('aborts with a TimeoutError when the time is up, a collection or not', () => {
    expect(abortsAfterCollection('deadline(50).signal')).toBe(true);
  });

  it.runIf(process.versions.node.startsWith('20.'))('(why) on Node 20, AbortSignal.any over AbortSignal.timeout does not, once collected', () => {
    expect(abortsAfterCollection('AbortSignal.any([AbortSignal.timeout(50)])')).toBe(false);
  });

  it('aborts with the parent, with its reason; done() unlinks it and clears the timer', async () => {
    const parent = new AbortController();
    const linked = deadline(10_000, parent.signal);
    parent.abort(new Error('turn cancelled'));
    expect((linked.signal.reason as Error).message).toBe('turn cancelled');
    linked.done();
    const other = new AbortController();
    const finished = deadline(50, other.signal);
    finished.done();
    other.abort();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(finished.signal.aborted).toBe(false);
  });
});
