import { errorMessage } from '../errors.js';

/**
 * A failed call to a speech endpoint, in one line that says what to check: the key, the URL, the model, the limits —
 * or, for what passes by itself (429, 5xx, a timeout), that a later try may work. `key` is `voice.stt` or
 * `voice.tts`. Contract: never throws; never includes the key.
 */
export function describeEndpointFailure(error: unknown, where: { key: string; baseUrl: string; model: string; timeoutS: number }): string {
  const status = (error as { status?: unknown } | undefined)?.status;
  const detail = serverMessage(error);
  if (typeof status === 'number') {
    if (status === 401 || status === 403) return `the speech endpoint at ${where.baseUrl} refused the API key (${status}): check ${where.key}.api_key`;
    if (status === 404) return `${where.baseUrl} answered 404${detail ? ` (${detail})` : ''}: check ${where.key}.base_url (the API root, e.g. ending in /v1) and ${where.key}.model (${where.model})`;
    if (status === 413) return `the audio was too large for the endpoint (413): lower voice.stt.max_upload_mb or voice.stt.max_piece_s`;
    if (status === 429) return `the speech endpoint is rate limiting or out of credit (429${detail ? `: ${detail}` : ''}); try again later`;
    if (status >= 500) return `the speech endpoint had a server error (${status}); try again in a moment`;
    return `the speech endpoint refused the request (${status}${detail ? `: ${detail}` : ''})`;
  }
  if (isTimeout(error)) return `the speech endpoint at ${where.baseUrl} did not answer within ${where.timeoutS} s (${where.key}.timeout_s)`;
  const code = networkCode(error);
  if (code === 'ECONNREFUSED') return `nothing answers at ${where.baseUrl} (connection refused): check ${where.key}.base_url and that the server runs`;
  if (code === 'ENOTFOUND') return `the host of ${where.baseUrl} was not found: check ${where.key}.base_url`;
  if (code !== undefined) return `the connection to ${where.baseUrl} failed (${code})`;
  return `the speech endpoint call failed (${errorMessage(error).slice(0, 200)})`;
}

function serverMessage(error: unknown): string | undefined {
  const body = (error as { error?: unknown } | undefined)?.error;
  const message = body !== null && typeof body === 'object' && 'message' in body ? (body as { message?: unknown }).message : undefined;
  return typeof message === 'string' && message !== '' ? message.slice(0, 200) : undefined;
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.constructor.name === 'APIConnectionTimeoutError' || /timed? ?out/i.test(error.message));
}

/** The first system error code in an error's cause chain. */
function networkCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current instanceof Error; depth += 1) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string') return code;
    // fetch refuses some ports (1, 9, 25, …) with this message and no code.
    if (/^bad port$/i.test(current.message)) return 'a port fetch refuses to use';
    current = current.cause;
  }
  return undefined;
}
