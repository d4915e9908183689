import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Tunes V8 for a long-running daemon that should stay small. By default V8 lets the old generation grow towards
 * a limit of a few GiB between rare full collections, and doubles the young generation under load up to 32 MiB;
 * both read as memory growth over days. Two flags, both read by the collector on every collection (so setting
 * them at run time takes effect, unlike the heap-size flags fixed when V8 starts):
 * - `--optimize-for-size`: the old generation is collected sooner and its pages are given back;
 * - `--semi-space-growth-factor=1`: the young generation keeps its initial size (1 MiB per semispace).
 * Measured in the soak (docs/BENCHMARKS.md): RSS from warm-up to the end ×1.04 (117 → 122 MiB), against
 * ×1.2–×1.6 (200 → 240–290 MiB) with V8's defaults, at the same throughput.
 * `FAMILIAR_V8_DEFAULTS=1` leaves V8 as it is (to compare).
 */
export function tuneHeapForDaemon(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.FAMILIAR_V8_DEFAULTS === '1') return false;
  setFlagsFromString('--optimize-for-size');
  setFlagsFromString('--semi-space-growth-factor=1');
  return true;
}

/**
 * What `familiar start` calls once it is ready: one full collection, which takes start-up's garbage (module sources,
 * the config's schema, parsed skills) and gives its pages back, so that the idle daemon does not hold them until a
 * collection comes on its own. Idle RSS 60.0 MiB against 60.7 (bench/turn-overhead.mjs). Tried and not kept: running
 * start-up on V8's defaults and tuning only here. It took 7 % fewer instructions to ready, but no less time on two
 * cores (the collector works on the second), and V8 gives a grown young generation back only once the allocation rate
 * of the last five seconds is low: a daemon read one second after ready held 64.6 MiB (docs/BENCHMARKS.md).
 */
export function collectStartupGarbage(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.FAMILIAR_V8_DEFAULTS === '1') return false;
  fullCollection();
  return true;
}

/**
 * A full collection, without `--expose-gc` on the command line: the flag makes `gc` a global of new contexts only.
 * Twice: the pages the first one empties are given back by the next (idle RSS 59.6 MiB against 61.9 when nothing
 * else collected in between, as when a start no longer loaded Node's crypto; bench/turn-overhead.mjs). The second
 * takes ~9 ms, after the daemon has said it is ready.
 */
function fullCollection(): void {
  setFlagsFromString('--expose-gc');
  try {
    const gc = runInNewContext('gc') as () => void;
    gc();
    gc();
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}
