/**
 * A read-only view over maps, looked up live in order: the first map holding a key answers for it. For a fixed
 * set of entries in front of one that changes (chat commands, then MCP prompts that come and go), without copying
 * — a copy would freeze the changing one. Iteration walks a snapshot taken when it starts.
 */
export function layeredMap<K, V>(layers: ReadonlyArray<ReadonlyMap<K, V>>): ReadonlyMap<K, V> {
  const snapshot = (): Map<K, V> => {
    const merged = new Map<K, V>();
    for (const layer of layers) for (const [key, value] of layer) if (!merged.has(key)) merged.set(key, value);
    return merged;
  };
  const view: ReadonlyMap<K, V> = {
    get(key) {
      for (const layer of layers) if (layer.has(key)) return layer.get(key);
      return undefined;
    },
    has: (key) => layers.some((layer) => layer.has(key)),
    get size() {
      return snapshot().size;
    },
    entries: () => snapshot().entries(),
    keys: () => snapshot().keys(),
    values: () => snapshot().values(),
    forEach(callback, thisArg?: unknown) {
      for (const [key, value] of snapshot()) callback.call(thisArg, value, key, view);
    },
    [Symbol.iterator]: () => snapshot().entries(),
  };
  return view;
}
