import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config/schema.js';
import type { Logger } from '../log.js';
import type { TriggerInbox } from './inbox.js';
import { verifyWebhook, type RouteSecret } from './signatures.js';
import { summarizeWebhook } from './summary.js';

type Routes = Config['triggers']['webhooks'];

export const HOOKS_PREFIX = '/hooks';
/** The largest body read; GitHub caps its payloads at 25 MB but the events worth a job are far smaller. */
const MAX_BODY_BYTES = 1_000_000;

/**
 * `POST /hooks/<name>/<token>` on http.listen: the route's token (timing-safe; wrong → 404, nothing said), its rate
 * limit (429), the body (at most 1 MB, 413), the signature (401; a stale timestamp 401), then the trigger committed
 * to the inbox — and only then 200 (`accepted`, or `duplicate` for a delivery id already there: a replay changes
 * nothing). Routes are read per request from the live config. Contract: answers every request; never throws.
 */
export function createWebhookHandler(deps: { routes: () => Routes; inbox: TriggerInbox; log: Logger; now: () => number }): { prefix: string; handle(request: IncomingMessage, response: ServerResponse): Promise<void> } {
  const buckets = new Map<string, { tokens: number; at: number }>();

  /** A token bucket per route: `per_minute` requests, refilled continuously. */
  const allowed = (name: string, perMinute: number): boolean => {
    const now = deps.now();
    const bucket = buckets.get(name) ?? { tokens: perMinute, at: now };
    bucket.tokens = Math.min(perMinute, bucket.tokens + ((now - bucket.at) / 60_000) * perMinute);
    bucket.at = now;
    buckets.set(name, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  };

  return {
    prefix: HOOKS_PREFIX,
    async handle(request, response) {
      const parts = new URL(request.url ?? '/', 'http://localhost').pathname.slice(HOOKS_PREFIX.length + 1).split('/');
      const [name, token] = parts;
      const routes = deps.routes();
      const route = name !== undefined && Object.hasOwn(routes, name) ? routes[name] : undefined;
      // An unknown route and a wrong token look the same: the path reveals nothing.
      if (!route || parts.length !== 2 || !route.token || !route.secret || !sameToken(token ?? '', route.token)) return send(response, 404, { error: 'not found' });
      if (request.method !== 'POST') {
        response.setHeader('Allow', 'POST');
        return send(response, 405, { error: 'use POST' });
      }
      const log = deps.log.child({ route: name });
      if (!allowed(name ?? '', route.per_minute)) {
        response.setHeader('Retry-After', '60');
        return send(response, 429, { error: `more than ${route.per_minute} requests a minute` });
      }
      const body = await readBody(request);
      if (body === undefined) return send(response, 413, { error: `the body is over ${MAX_BODY_BYTES} bytes` });
      const secret: RouteSecret = {
        scheme: route.scheme, secret: route.secret, header: route.header, idHeader: route.id_header,
        timestampHeader: route.timestamp_header, replayWindowS: route.replay_window,
      };
      const verified = verifyWebhook(secret, request.headers, body, deps.now());
      if (!verified.ok) {
        log.warn({ status: verified.status }, `webhook ${name}: refused: ${verified.error}`);
        return send(response, verified.status, { error: verified.error });
      }
      const source = `webhook:${name}`;
      const text = body.toString('utf8');
      const { duplicate } = deps.inbox.record({
        id: `${source}:${verified.deliveryId}`, source, payload: text,
        summary: summarizeWebhook(name ?? '', verified.event, text),
      });
      log.info({ deliveryId: verified.deliveryId, duplicate }, `webhook ${name}: ${duplicate ? 'duplicate, already in the inbox' : 'accepted'}`);
      send(response, 200, { status: duplicate ? 'duplicate' : 'accepted' });
    },
  };
}

/** The body, or undefined past the limit (the rest is not read). */
async function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

function sameToken(given: string, expected: string): boolean {
  // Digests make the comparison constant-time whatever the guess's length.
  return timingSafeEqual(createHash('sha256').update(given).digest(), createHash('sha256').update(expected).digest());
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = `${JSON.stringify(body)}\n`;
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store' });
  response.end(text);
}
