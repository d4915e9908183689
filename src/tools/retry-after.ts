/** Reads a `retry-after` header (seconds or an HTTP date) as whole seconds from `now`; undefined when absent or unreadable. */
export function retryAfterSeconds(value: string | string[] | null | undefined, now = Date.now()): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text));
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}
