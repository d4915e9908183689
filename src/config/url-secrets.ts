/** Query parameter names whose values are credentials (`?api_key=…`, `?access_token=…`, `?sig=…`). */
const SECRET_PARAMETER = /^(?:.*[-_])?(?:key|apikey|token|secret|password|passwd|pass|pwd|auth|sig|signature|credential|credentials|session|code)$/i;
const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;
const TOKEN_SEGMENT = /^[A-Za-z0-9_:~-]{20,}$/;

/**
 * The credentials a configured URL carries, as they must be redacted: the password of `user:password@` (as
 * written and decoded), `user:password` (what a Basic header encodes, so its base64 form is caught too), the
 * values of secret-looking query parameters, and token-like path segments (20+ letters and digits, both present).
 * Contract: never throws; text that is not a URL yields nothing.
 */
export function urlSecrets(text: string): string[] {
  const trimmed = text.trim();
  if (!URL_LIKE.test(trimmed)) return [];
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return [];
  }
  const out: string[] = [];
  if (url.password !== '') {
    const user = safeDecode(url.username);
    const password = safeDecode(url.password);
    out.push(url.password, password, `${user}:${password}`, `${url.username}:${url.password}`);
  } else if (url.username !== '' && url.host !== '') {
    // `https://TOKEN@host`: a bare user part is how some services take a token.
    out.push(url.username, safeDecode(url.username));
  }
  for (const [name, value] of url.searchParams) {
    if (SECRET_PARAMETER.test(name) && value !== '') out.push(value);
  }
  // Webhook-style URLs carry their token in the path (`/services/T0/B0/XXXX…`, `/bot123:AA…/`): a long segment
  // of letters and digits is treated as one. A short word such as `api` or `v1` never is.
  // A path on this machine (`file:///tmp/hub-repo-2edQJY…`) names a place, not a credential.
  if (url.protocol === 'file:' || url.host === '') return out;
  for (const segment of url.pathname.split('/')) {
    const decoded = safeDecode(segment);
    if (TOKEN_SEGMENT.test(decoded) && /[0-9]/.test(decoded) && /[A-Za-z]/.test(decoded)) out.push(segment, decoded);
  }
  return out;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
