/**
 * Redaction of configured secrets, in every form a secret travels in: as it is, JSON-escaped (once, twice,
 * and with non-ASCII as \uXXXX), URL-encoded (%20 and + forms, upper- and lower-case hex) and base64
 * (standard and url-safe, padded or not, and at any alignment inside a longer base64 text, so the password of
 * a `Basic user:pass` header or a secret in an encoded file is caught too).
 * Redaction runs on values, before they are serialised: a secret that contains `"` or `\` is found in the
 * string it sits in, not looked for in a JSON line where it has been escaped. Contract: never throws.
 */

export const REDACTED = '[REDACTED]';
/** Shorter values would redact ordinary words; config values this short are not treated as secrets. */
export const MIN_SECRET_LENGTH = 4;
/** A base64 fragment this long (6 bytes of the secret) is specific enough to redact on its own. */
const MIN_BASE64_FRAGMENT = 8;
/** Log objects and tool arguments are shallow; anything deeper is redacted as its JSON text. */
const MAX_DEPTH = 10;

export interface Redactor {
  /** No secrets: every method returns its input. */
  readonly empty: boolean;
  text(value: string): string;
  /** A copy of `value` with every string (keys too) redacted, at any depth; the same reference when nothing changed. */
  value<T>(value: T): T;
}

/** Every form in which `secret` may appear in text, longest first. */
export function secretVariants(secret: string): string[] {
  const out = new Set<string>();
  const add = (variant: string, minimum = MIN_SECRET_LENGTH): void => {
    if (variant.length >= minimum) out.add(variant);
  };
  add(secret);
  const json = JSON.stringify(secret).slice(1, -1);
  add(json);
  // JSON text inside a JSON string (a tool call's arguments, stored or logged as a string), and once more (an
  // API that returns such text inside its own JSON, pretty-printed again by the http tool).
  let nested = json;
  for (let level = 2; level <= 3; level += 1) {
    nested = JSON.stringify(nested).slice(1, -1);
    add(nested);
  }
  // Serialisers that escape every non-ASCII character (Python's json.dumps).
  add(json.replace(/[^\x20-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`));
  // Once and twice (a URL inside a query parameter).
  const component = encodeURIComponent(secret);
  for (const encoded of [component, new URLSearchParams({ s: secret }).toString().slice(2), safeEncodeUri(secret), encodeURIComponent(component)]) {
    add(encoded);
    add(encoded.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()));
  }
  const bytes = Buffer.from(secret, 'utf8');
  for (const encoding of ['base64', 'base64url'] as const) {
    // Padded and not: the padding goes with the secret, so `Basic [REDACTED]` is left, not `[REDACTED]==`.
    add(bytes.toString(encoding));
    add(bytes.toString(encoding).replace(/=+$/, ''));
    if (encoding === 'base64url') add(bytes.toString('base64').replace(/\+/g, '-').replace(/\//g, '_'));
    // Inside a longer base64 text the secret starts at any of three byte offsets within a 3-byte group; the
    // characters of the groups it fills alone are the same whatever surrounds it.
    for (let skip = 0; skip < 3; skip += 1) {
      const rest = bytes.subarray(skip);
      const whole = rest.subarray(0, rest.length - (rest.length % 3));
      add(whole.toString(encoding), MIN_BASE64_FRAGMENT);
    }
  }
  return [...out].sort((a, b) => b.length - a.length);
}

function safeEncodeUri(text: string): string {
  try {
    return encodeURI(text);
  } catch {
    return text; // a lone surrogate; encodeURIComponent above threw the same way only if this did
  }
}

const ESCAPE = /[.*+?^${}()|[\]\\]/g;

/** Builds a redactor for `secrets` (values shorter than MIN_SECRET_LENGTH are ignored). */
export function createRedactor(secrets: readonly string[]): Redactor {
  const variants = new Set<string>();
  for (const secret of secrets) {
    if (typeof secret !== 'string' || secret.length < MIN_SECRET_LENGTH) continue;
    for (const variant of safeVariants(secret)) variants.add(variant);
  }
  if (variants.size === 0) return { empty: true, text: (value) => value, value: (value) => value };
  // Longest first: at each position the whole escaped form wins over a raw prefix of it.
  const pattern = new RegExp([...variants].sort((a, b) => b.length - a.length).map((variant) => variant.replace(ESCAPE, '\\$&')).join('|'), 'g');
  const text = (value: string): string => {
    pattern.lastIndex = 0;
    return pattern.test(value) ? value.replace(pattern, REDACTED) : value;
  };
  const redactValue = (value: unknown, depth: number): unknown => {
    if (typeof value === 'string') return text(value);
    if (value === null || typeof value !== 'object') return value;
    if (depth >= MAX_DEPTH) return text(safeJson(value));
    if (Array.isArray(value)) {
      let changed = false;
      const out = value.map((item: unknown) => {
        const redacted = redactValue(item, depth + 1);
        if (redacted !== item) changed = true;
        return redacted;
      });
      return changed ? out : value;
    }
    if (ArrayBuffer.isView(value)) return value;
    if (value instanceof Error) {
      const plain = errorObject(value);
      const redacted = redactValue(plain, depth + 1);
      return redacted === plain ? value : toError(redacted as Record<string, unknown>);
    }
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
      let json: unknown;
      try {
        json = (value as { toJSON(): unknown }).toJSON();
      } catch {
        return value;
      }
      const redacted = redactValue(json, depth + 1);
      return redacted === json ? value : redacted;
    }
    // Copy-on-write: most objects hold no secret, and are returned as they are without any allocation but the keys.
    const keys = Object.keys(value);
    let entries: Array<[string, unknown]> | undefined;
    for (let index = 0; index < keys.length; index += 1) {
      const key = keys[index] as string;
      const item = (value as Record<string, unknown>)[key];
      const cleanKey = text(key);
      const cleanItem = redactValue(item, depth + 1);
      if (!entries && (cleanKey !== key || cleanItem !== item)) {
        entries = keys.slice(0, index).map((earlier) => [earlier, (value as Record<string, unknown>)[earlier]]);
      }
      entries?.push([cleanKey, cleanItem]);
    }
    // fromEntries defines properties, so a key such as "__proto__" stays a key and never sets a prototype.
    return entries ? Object.fromEntries(entries) : value;
  };
  return { empty: false, text, value: <T>(value: T): T => redactValue(value, 0) as T };
}

/** The forms of a secret the redactor looks for (raw and encoded); one that cannot be encoded (a lone surrogate) as it is. */
export function safeVariants(secret: string): string[] {
  try {
    return secretVariants(secret);
  } catch {
    return [secret];
  }
}

const cache = new WeakMap<readonly string[], Redactor>();

/** The redactor for one list of secrets, built once per list (the config's list lives as long as the process). */
export function redactorFor(secrets: readonly string[]): Redactor {
  let redactor = cache.get(secrets);
  if (!redactor) {
    redactor = createRedactor(secrets);
    cache.set(secrets, redactor);
  }
  return redactor;
}

/** What pino's error serializer would write, as a plain object, so its strings can be redacted. */
function errorObject(error: Error): Record<string, unknown> {
  const out: Record<string, unknown> = { type: error.name, message: error.message, stack: error.stack };
  for (const key of Object.keys(error)) {
    if (key !== 'cause') out[key] = (error as unknown as Record<string, unknown>)[key];
  }
  if (error.cause !== undefined) out.cause = error.cause;
  // AggregateError keeps its errors in a property serialisers print but Object.keys does not list.
  const errors = (error as { errors?: unknown }).errors;
  if (Array.isArray(errors)) out.errors = errors;
  return out;
}

/** Back into an Error, so loggers still serialise it as one (type, message, stack, cause). */
function toError(plain: Record<string, unknown>): Error {
  const { type, message, stack, cause, ...rest } = plain;
  const error = new Error(typeof message === 'string' ? message : '', cause !== undefined ? { cause } : undefined);
  // Not enumerable, as on a thrown Error, so serialisers do not print it twice.
  Object.defineProperty(error, 'name', { value: typeof type === 'string' ? type : 'Error', enumerable: false, writable: true, configurable: true });
  error.stack = typeof stack === 'string' ? stack : '';
  // Defined, not assigned: a key such as "__proto__" stays a plain property.
  for (const [key, item] of Object.entries(rest)) Object.defineProperty(error, key, { value: item, enumerable: true, writable: true, configurable: true });
  return error;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '[unserialisable]';
  }
}
