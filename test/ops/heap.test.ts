import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const HEAP = fileURLToPath(new URL('../../dist/ops/heap.js', import.meta.url));

/**
 * Allocates the same garbage in a fresh process, tuned or not, and reports the young generation's size. 50 rounds of
 * 20 000 objects grow V8's default to 32 MiB already (200 rounds gave the same sizes, at four times the CPU).
 */
function youngGenerationMiB(env: Record<string, string>): { tuned: boolean; mib: number } {
  const script = `
    import v8 from 'node:v8';
    const { tuneHeapForDaemon } = await import(${JSON.stringify(HEAP)});
    const tuned = tuneHeapForDaemon();
    const keep = [];
    for (let round = 0; round < 50; round += 1) {
      const batch = [];
      for (let i = 0; i < 20000; i += 1) batch.push({ i, text: 'item ' + i });
      keep.push(batch);
      if (keep.length > 3) keep.shift();
    }
    // Read right after a scavenge: on Node 24 the young generation's pages come and go between scavenges (2 to 3.75 MiB
    // when sampled mid-allocation, tuned; 64 MiB not), and settle at its size after one.
    globalThis.gc({ type: 'minor' });
    const space = v8.getHeapSpaceStatistics().find((entry) => entry.space_name === 'new_space');
    console.log(JSON.stringify({ tuned, mib: space.space_size / 1048576 }));
  `;
  return JSON.parse(execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' })) as { tuned: boolean; mib: number };
}

describe('heap tuning of familiar start', () => {
  it('keeps the young generation at its initial size under an allocation load that grows it by default', () => {
    const tuned = youngGenerationMiB({});
    const defaults = youngGenerationMiB({ FAMILIAR_V8_DEFAULTS: '1' });
    expect(tuned.tuned).toBe(true);
    expect(defaults.tuned).toBe(false);
    expect(tuned.mib).toBeLessThanOrEqual(2);
    expect(defaults.mib).toBeGreaterThanOrEqual(8);
  });

  it('takes start-up\'s garbage once ready, with a full collection (not with V8\'s defaults)', () => {
    const script = `
      const { collectStartupGarbage } = await import(${JSON.stringify(HEAP)});
      // Start-up's garbage, unreachable and grown old; the WeakRef is made in an earlier job than the check.
      let garbage = { big: new Array(200000).fill('start-up') };
      const probe = new WeakRef(garbage);
      garbage = undefined;
      await new Promise((resolve) => setImmediate(resolve));
      const ran = collectStartupGarbage();
      console.log(JSON.stringify({ ran, collected: probe.deref() === undefined, gcGlobal: typeof globalThis.gc }));
    `;
    const run = (env: Record<string, string>): { ran: boolean; collected: boolean; gcGlobal: string } =>
      JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' })) as { ran: boolean; collected: boolean; gcGlobal: string };
    expect(run({})).toEqual({ ran: true, collected: true, gcGlobal: 'undefined' });
    expect(run({ FAMILIAR_V8_DEFAULTS: '1' })).toEqual({ ran: false, collected: false, gcGlobal: 'undefined' });
  });
});
