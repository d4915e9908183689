/** Query parameter names whose values are credentials (`?api_key=…`, `?access_token=…`, `?sig=…`). */
const SECRET_PARAMETER = /^(?:.*[-_])?(?:key|apikey|token|secret|password|passwd|pass|pwd|auth|sig|signature|credential|credentials|session|code)$/i;
const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * The credentials a configured URL carries, as they must be redacted: the password of `user:password@` (as
 * written and decoded), `user:password` (what a Basic header encodes, so its base64 form is caught too), and the
 * values of secret-looking query parameters. Contract: never throws; text that is not a URL yields nothing.
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
  return out;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
