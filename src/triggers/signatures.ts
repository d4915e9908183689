import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export type WebhookScheme = 'github' | 'standard' | 'hmac';

export interface RouteSecret {
  scheme: WebhookScheme;
  secret: string;
  /** `hmac`: the header carrying the hex HMAC-SHA256 of the body (`sha256=` prefix allowed). */
  header: string;
  /** `hmac`: the header carrying the delivery's id (else the body's hash is its id). */
  idHeader: string;
  /** `hmac`: the header carrying a Unix timestamp in seconds; when set it is signed too (`<timestamp>.<body>`). */
  timestampHeader: string | undefined;
  /** How far a signed timestamp may be from now, in seconds (`standard`, and `hmac` with a timestamp header). */
  replayWindowS: number;
}

/** A request that passed: its id (the provider's delivery id) and its event name where the scheme has one. */
export type Verified = { ok: true; deliveryId: string; event: string | undefined } | { ok: false; status: 400 | 401; error: string };

/**
 * Checks a webhook's signature over its raw body, timing-safe: GitHub's `X-Hub-Signature-256`, Standard Webhooks
 * (`webhook-id`, `webhook-timestamp`, `webhook-signature` v1 with a `whsec_` base64 secret, per
 * https://www.standardwebhooks.com), or a generic HMAC-SHA256 in a named header. A timestamp outside the replay
 * window is refused (401) before its signature is looked at. Contract: never throws.
 */
export function verifyWebhook(route: RouteSecret, headers: IncomingHttpHeaders, body: Buffer, now: number): Verified {
  switch (route.scheme) {
    case 'github':
      return verifyGithub(route, headers, body);
    case 'standard':
      return verifyStandard(route, headers, body, now);
    case 'hmac':
      return verifyHmac(route, headers, body, now);
  }
}

function verifyGithub(route: RouteSecret, headers: IncomingHttpHeaders, body: Buffer): Verified {
  const signature = header(headers, 'x-hub-signature-256');
  const deliveryId = header(headers, 'x-github-delivery');
  if (signature === undefined || !signature.startsWith('sha256=')) return { ok: false, status: 401, error: 'missing X-Hub-Signature-256 (sha256=…)' };
  if (deliveryId === undefined) return { ok: false, status: 400, error: 'missing X-GitHub-Delivery' };
  const expected = createHmac('sha256', route.secret).update(body).digest();
  if (!sameBytes(Buffer.from(signature.slice('sha256='.length), 'hex'), expected)) return { ok: false, status: 401, error: 'the signature does not match' };
  return { ok: true, deliveryId, event: header(headers, 'x-github-event') };
}

function verifyStandard(route: RouteSecret, headers: IncomingHttpHeaders, body: Buffer, now: number): Verified {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (id === undefined || timestamp === undefined || signatures === undefined) return { ok: false, status: 401, error: 'missing webhook-id, webhook-timestamp or webhook-signature' };
  const stale = staleTimestamp(timestamp, route.replayWindowS, now);
  if (stale !== undefined) return { ok: false, status: 401, error: stale };
  const key = Buffer.from(route.secret.startsWith('whsec_') ? route.secret.slice('whsec_'.length) : route.secret, 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest();
  // Several signatures may be sent (a secret being rotated): any v1 one that matches will do.
  const matches = signatures.split(' ').some((entry) => {
    const [version, value] = entry.split(',', 2);
    return version === 'v1' && value !== undefined && sameBytes(Buffer.from(value, 'base64'), expected);
  });
  return matches ? { ok: true, deliveryId: id, event: undefined } : { ok: false, status: 401, error: 'no v1 signature matches' };
}

function verifyHmac(route: RouteSecret, headers: IncomingHttpHeaders, body: Buffer, now: number): Verified {
  const given = header(headers, route.header);
  if (given === undefined) return { ok: false, status: 401, error: `missing ${route.header}` };
  const hmac = createHmac('sha256', route.secret);
  if (route.timestampHeader !== undefined) {
    const timestamp = header(headers, route.timestampHeader);
    if (timestamp === undefined) return { ok: false, status: 401, error: `missing ${route.timestampHeader}` };
    const stale = staleTimestamp(timestamp, route.replayWindowS, now);
    if (stale !== undefined) return { ok: false, status: 401, error: stale };
    hmac.update(`${timestamp}.`);
  }
  const expected = hmac.update(body).digest();
  if (!sameBytes(Buffer.from(given.replace(/^sha256=/, ''), 'hex'), expected)) return { ok: false, status: 401, error: 'the signature does not match' };
  const deliveryId = header(headers, route.idHeader) ?? createHash('sha256').update(body).digest('hex').slice(0, 32);
  return { ok: true, deliveryId, event: undefined };
}

/** Why a signed Unix timestamp (seconds) is not acceptable now, or undefined. */
function staleTimestamp(value: string, windowS: number, now: number): string | undefined {
  if (!/^\d{1,12}$/.test(value)) return 'the timestamp is not a Unix time in seconds';
  const skew = Math.abs(now / 1000 - Number(value));
  return skew > windowS ? `the timestamp is ${Math.round(skew)} s away from now, outside the replay window (${windowS} s)` : undefined;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? undefined : first;
}

function sameBytes(given: Buffer, expected: Buffer): boolean {
  return given.length === expected.length && timingSafeEqual(given, expected);
}
