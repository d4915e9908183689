/**
 * Network failures a retry cannot fix (the URL or the server's state is wrong): retrying a refused connection
 * three times only delays the one line that says "check llm.base_url".
 */
export const PERMANENT_NETWORK_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'ERR_INVALID_URL', 'BAD_PORT', 'TLS']);

/** The first system error code in an error's cause chain (AggregateError too); `BAD_PORT`/`TLS` for those cases. */
export function networkCode(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0) {
    const current = queue.shift();
    if (!(current instanceof Error) || seen.has(current)) continue;
    seen.add(current);
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string') {
      if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|EPROTO/.test(code)) return 'TLS';
      if (code !== 'ERR_ASSERTION') return code;
    }
    // undici says "bad port" without a code for ports fetch blocks (1, 9, 25, …).
    if (/^bad port$/i.test(current.message)) return 'BAD_PORT';
    if (/wrong version number|ssl routines/i.test(current.message)) return 'TLS';
    if (current instanceof AggregateError) queue.push(...(current.errors as unknown[]));
    queue.push(current.cause);
  }
  return undefined;
}
