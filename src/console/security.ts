import { timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseCookie, stringifySetCookie } from 'cookie';

/**
 * The console's checks on every request, before any page code runs:
 * - `Host` must be a name the console answers to (loopback names, the configured `http.hosts`, the public URL's
 *   host) or an IP address: a page on another site that rebinds its own name to this machine is refused, since
 *   DNS rebinding always arrives with the attacker's name in `Host`.
 * - A state-changing request must come from the console's own pages: `Origin` is this very host, `Sec-Fetch-Site`
 *   (when the browser sends it) is same-origin, and the session's CSRF token comes with it.
 * - Every answer carries a strict Content-Security-Policy (no inline script, nothing from elsewhere) and headers
 *   that keep it out of frames, caches and referrers.
 */
export function allowedHostNames(options: { listenHost: string; hosts: readonly string[]; publicUrl: string | undefined }): Set<string> {
  const names = new Set(['localhost', '127.0.0.1', '::1']);
  if (options.listenHost !== '0.0.0.0' && options.listenHost !== '::') names.add(options.listenHost.toLowerCase());
  for (const host of options.hosts) names.add(host.toLowerCase().replace(/^\[|\]$/g, ''));
  if (options.publicUrl) names.add(new URL(options.publicUrl).hostname.toLowerCase().replace(/^\[|\]$/g, ''));
  return names;
}

/**
 * Whether a request may be served without TLS: the browser is on this machine — the connection comes from loopback
 * (a local browser, an SSH tunnel, a proxy or tunnel here that ended TLS: Caddy, `tailscale serve`), or the browser
 * addressed a loopback name (Docker publishing the port on the host's 127.0.0.1 shows the daemon the bridge's
 * address, but the browser still asked for 127.0.0.1) — or it came through a TLS proxy elsewhere: the public URL is
 * https and the proxy said so (`X-Forwarded-Proto: https`). Anything else would carry the login link and the
 * session cookie in clear over a network, so the console refuses it. (This guards the person against an accident,
 * not an attacker: the Host and forwarded headers are what honest browsers and proxies send.)
 */
export function transportAllowed(request: IncomingMessage, publicUrl: string | undefined): boolean {
  const peer = (request.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
  if (peer === '::1' || /^127\./.test(peer)) return true;
  const name = hostName(request.headers.host);
  if (name === 'localhost' || name === '::1' || (name !== undefined && /^127\./.test(name))) return true;
  const forwarded = String(request.headers['x-forwarded-proto'] ?? '').split(',')[0]?.trim().toLowerCase();
  return publicUrl?.startsWith('https:') === true && forwarded === 'https';
}

/** The host name of a `Host` header (`name:port`, `[v6]:port`), lower case, or undefined when malformed. */
export function hostName(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9.-]+))(?::(\d{1,5}))?$/.exec(header.trim());
  if (!match) return undefined;
  return (match[1] ?? match[2] ?? '').toLowerCase();
}

export function hostAllowed(header: string | undefined, allowed: ReadonlySet<string>): boolean {
  const name = hostName(header);
  if (name === undefined) return false;
  return allowed.has(name) || isIP(name) !== 0;
}

/**
 * A state-changing request from the console's own pages: `Origin` names this host (http or https, the same
 * `Host` the browser sent), and `Sec-Fetch-Site` is same-origin when present. A request without `Origin` is
 * refused: every browser sends it with POST.
 */
export function sameOrigin(request: IncomingMessage): boolean {
  const origin = request.headers.origin;
  const host = request.headers.host;
  if (!origin || !host) return false;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
  if (parsed.host.toLowerCase() !== host.toLowerCase()) return false;
  const site = request.headers['sec-fetch-site'];
  return site === undefined || site === 'same-origin';
}

export function tokensEqual(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  // The service worker at /console/sw.js (the installed app's shell cache and its notifications).
  "worker-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** Headers on every console answer. */
export function setSecurityHeaders(response: ServerResponse): void {
  response.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  response.setHeader('X-Content-Type-Options', 'nosniff');
  response.setHeader('X-Frame-Options', 'DENY');
  // Not no-referrer: with it, Chromium sends `Origin: null` on a form post, which the Origin check must refuse.
  // same-origin still sends nothing to other sites.
  response.setHeader('Referrer-Policy', 'same-origin');
  response.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  response.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  response.setHeader('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), payment=(), usb=()');
}

/** The session cookie's value, if the request carries one. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  return header ? parseCookie(header)[name] : undefined;
}

/** HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it), only for the console's paths. */
export function sessionCookie(name: string, value: string, options: { maxAgeS: number; secure: boolean }): string {
  return stringifySetCookie(name, value, { path: '/console', httpOnly: true, sameSite: 'strict', maxAge: options.maxAgeS, secure: options.secure });
}
