import { redactorFor } from './redaction.js';

/** Argument keys whose values never appear in an approval prompt or a displayed audit row. */
const SECRET_KEY = /pass(word|phrase)?|secret|token|api[-_]?key|authori[sz]ation|cookie|credential|private[-_]?key|bearer/i;

export const MASK = '[MASKED]';

/** A copy of `value` with secret-looking keys masked, at any depth. Contract: never throws. */
export function maskSecretKeys(value: unknown, depth = 0): unknown {
  if (depth > 20) return '…';
  if (Array.isArray(value)) return value.map((item) => maskSecretKeys(item, depth + 1));
  if (value !== null && typeof value === 'object') {
    // fromEntries defines each key, so "__proto__" stays a key instead of replacing the prototype (and vanishing).
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [key, SECRET_KEY.test(key) && inner !== null && inner !== '' ? MASK : maskSecretKeys(inner, depth + 1)]),
    );
  }
  return value;
}

/** The same masking for stored JSON text (audit rows); text that is not JSON gets the secret values redacted. */
export function maskJsonText(text: string, secrets: readonly string[]): string {
  const redactor = redactorFor(secrets);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return redactor.text(text);
  }
  // Values are redacted before they are serialised again, so a secret with a quote in it is still whole.
  return JSON.stringify(maskSecretKeys(redactor.value(parsed)));
}
