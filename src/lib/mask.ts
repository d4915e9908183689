import { redactSecrets } from '../log.js';

/** Argument keys whose values never appear in an approval prompt or a displayed audit row. */
const SECRET_KEY = /pass(word|phrase)?|secret|token|api[-_]?key|authori[sz]ation|cookie|credential|private[-_]?key|bearer/i;

export const MASK = '[MASKED]';

/** A copy of `value` with secret-looking keys masked, at any depth. Contract: never throws. */
export function maskSecretKeys(value: unknown, depth = 0): unknown {
  if (depth > 20) return '…';
  if (Array.isArray(value)) return value.map((item) => maskSecretKeys(item, depth + 1));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      out[key] = SECRET_KEY.test(key) && inner !== null && inner !== '' ? MASK : maskSecretKeys(inner, depth + 1);
    }
    return out;
  }
  return value;
}

/**
 * Arguments as shown to a person: secret-looking keys masked, then every configured secret value
 * replaced wherever it sits (a token pasted into a URL or a body).
 */
export function maskArguments(params: Record<string, unknown>, secrets: readonly string[], maxChars = 1500): string {
  const text = redactSecrets(JSON.stringify(maskSecretKeys(params), null, 1).replace(/\n\s*/g, ' '), secrets);
  return text.length > maxChars ? `${text.slice(0, maxChars)}… (${text.length - maxChars} more characters)` : text;
}

/** The same masking for stored JSON text (audit rows); text that is not JSON gets the secret values redacted. */
export function maskJsonText(text: string, secrets: readonly string[]): string {
  try {
    return redactSecrets(JSON.stringify(maskSecretKeys(JSON.parse(text))), secrets);
  } catch {
    return redactSecrets(text, secrets);
  }
}
