/** Reads a `retry-after` header (seconds, possibly fractional, or an HTTP date) as ms from `now`; undefined when absent or unreadable. */
export function retryAfterMsOf(value: string | string[] | null | undefined, now = Date.now()): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/** Reads a `retry-after` header (seconds or an HTTP date) as whole seconds from `now`; undefined when absent or unreadable. */
export function retryAfterSeconds(value: string | string[] | null | undefined, now = Date.now()): number | undefined {
  const ms = retryAfterMsOf(value, now);
  return ms === undefined ? undefined : Math.ceil(ms / 1000);
}
