import type { ToolsConfig } from '../../config/schema.js';
import type { Result } from '../../lib/result.js';

export type HttpConfig = ToolsConfig['http'];
export type HttpPreset = HttpConfig['presets'][string];

/** Where a call goes and which secret headers may travel with it. */
export interface HttpTarget {
  url: URL;
  /** The preset's headers, bound to the preset's origin. */
  scoped?: { origin: string; headers: Record<string, string> };
}

const ABSOLUTE = /^[a-z][a-z0-9+.-]*:/i;

/** A preset as the model may see it: its name, origin and description, never its headers or full base URL. */
export function describePreset(name: string, preset: HttpPreset): string {
  let origin: string;
  try {
    origin = new URL(preset.base_url).origin;
  } catch {
    origin = '(invalid base_url)';
  }
  return `${name} → ${origin}${preset.description ? ` (${preset.description.replace(/\s+/g, ' ').slice(0, 200)})` : ''}`;
}

/**
 * Resolves `url` (+ `preset`, + `query`) into the request URL. A relative URL needs a preset and is joined to
 * its base_url; an absolute URL with a preset must stay on the preset's origin, else its headers would leave it.
 * Contract: never throws; errors are messages the model can act on.
 */
export function resolveTarget(
  input: { url: string; preset?: string | undefined; query?: Readonly<Record<string, string | number | boolean>> | undefined },
  presets: HttpConfig['presets'],
): Result<HttpTarget> {
  const rawUrl = input.url.trim();
  let url: URL;
  let scoped: HttpTarget['scoped'];
  if (input.preset !== undefined) {
    const names = Object.keys(presets);
    if (!Object.hasOwn(presets, input.preset)) {
      return { success: false, error: `Unknown preset "${input.preset}". Valid presets: ${names.join(', ') || '(none configured)'}; or leave preset out and give an absolute URL.` };
    }
    const preset = presets[input.preset] as HttpPreset;
    const base = new URL(preset.base_url);
    const headers: Record<string, string> = {};
    // Credentials in the base URL become a header so they are scoped like the others, and never shown.
    if (base.username || base.password) {
      const user = decodeURIComponent(base.username);
      const password = decodeURIComponent(base.password);
      headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
      base.username = '';
      base.password = '';
    }
    for (const [name, value] of Object.entries(preset.headers)) headers[name.toLowerCase()] = value;
    if (ABSOLUTE.test(rawUrl)) {
      const parsed = parseUrl(rawUrl);
      if (!parsed) return { success: false, error: `"${rawUrl}" is not a valid URL.` };
      if (parsed.origin !== base.origin) {
        return {
          success: false,
          error: `Preset "${input.preset}" only works on ${base.origin}, not ${parsed.origin}: its credentials are never sent to another site. Use a path relative to the preset (e.g. "/items"), or leave preset out to call ${parsed.origin} without them.`,
        };
      }
      url = parsed;
    } else {
      const joined = parseUrl(`${base.origin}${base.pathname.replace(/\/+$/, '')}/${rawUrl.replace(/^\/+/, '')}`);
      if (joined && base.search) {
        // Query parameters of base_url come first, then the path's own.
        const own = [...joined.searchParams];
        joined.search = base.search;
        for (const [key, value] of own) joined.searchParams.append(key, value);
      }
      if (!joined || joined.origin !== base.origin) return { success: false, error: `"${rawUrl}" cannot be joined to preset "${input.preset}"; give a path such as "/items?page=2".` };
      url = joined;
    }
    scoped = { origin: base.origin, headers };
  } else {
    if (!ABSOLUTE.test(rawUrl)) {
      const names = Object.keys(presets);
      return {
        success: false,
        error: `"${rawUrl}" is not an absolute URL. Give a full http(s) URL${names.length > 0 ? `, or a path together with one of the presets: ${names.join(', ')}` : ''}.`,
      };
    }
    const parsed = parseUrl(rawUrl);
    if (!parsed) return { success: false, error: `"${rawUrl}" is not a valid URL.` };
    url = parsed;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { success: false, error: `Only http and https URLs are supported, not ${url.protocol}` };
  }
  for (const [key, value] of Object.entries(input.query ?? {})) url.searchParams.append(key, String(value));
  url.hash = '';
  return { success: true, value: scoped ? { url, scoped } : { url } };
}

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}
