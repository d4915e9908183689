import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Tunes V8 for a long-running daemon that should stay small. By default V8 lets the old generation grow towards
 * a limit of a few GiB between rare full collections, and doubles the young generation under load up to 32 MiB;
 * both read as memory growth over days. Two flags, both read by the collector on every collection (so setting
 * them at run time takes effect, unlike the heap-size flags fixed when V8 starts):
 * - `--optimize-for-size`: the old generation is collected sooner and its pages are given back;
 * - `--semi-space-growth-factor=1`: the young generation keeps its size (1 MiB per semispace from the start).
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
 * What `familiar start` calls once it is ready. Start-up allocates some 40 MB that mostly dies young; tuned from its
 * first line, it took 7 % more instructions to ready (callgrind, 910 against 844 million, the collection below included).
 * So start-up runs on V8's defaults (the young generation grows fourfold), and then this tunes the heap
 * and runs a full collection, which takes start-up's garbage and gives the grown young generation back. V8 shrinks
 * the young generation only when its allocation rate over the last five seconds is low, which right after start-up it
 * sometimes is not: while it is still larger than its initial size, the collection is run again every six seconds, five
 * times at most (an idle daemon is then back at its initial size; one busy from its first seconds may keep 6 MiB more).
 */
export function settleHeapForDaemon(env: NodeJS.ProcessEnv = process.env): boolean {
  if (!tuneHeapForDaemon(env)) return false;
  fullCollection();
  let tries = 0;
  const again = (): void => {
    if (youngGenerationSize() <= YOUNG_INITIAL || (tries += 1) > 5) return;
    fullCollection();
    setTimeout(again, 6000).unref();
  };
  setTimeout(again, 6000).unref();
  return true;
}

/** The young generation's size as V8 starts it (at most; 1 or 2 MiB, by release). */
const YOUNG_INITIAL = 2 * 1024 * 1024;

export function youngGenerationSize(): number {
  return getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
}

/** A full collection, without `--expose-gc` on the command line: the flag makes `gc` a global of new contexts only. */
function fullCollection(): void {
  setFlagsFromString('--expose-gc');
  try {
    (runInNewContext('gc') as () => void)();
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}
