// A local Web Push service: the receiving side of RFC 8030 (a POST to the subscription's endpoint with TTL and
// Urgency headers, answered 201), with the sender's VAPID JWT checked against the public key it names (RFC 8292)
// and the aes128gcm payload (RFC 8188 records, keys from RFC 8291) decrypted with the subscription's private key —
// written from the RFCs with node:crypto, not with web-push. It speaks HTTPS (web-push only does HTTPS), with a
// self-signed certificate whose PEM `ca` the sender trusts.
import { createECDH, createDecipheriv, createPublicKey, hkdfSync, randomBytes, verify, type ECDH } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A browser's side of a subscription: the keys the payload is encrypted to, and where the service takes it. */
export interface TestSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

export interface ReceivedPush {
  endpoint: string;
  ttl: number;
  urgency: string | undefined;
  /** The JWT's claims, after its signature checked out. */
  claims: { aud: string; exp: number; sub: string };
  /** The VAPID public key the request named (`k=`). */
  vapidKey: string;
  /** The decrypted payload. */
  text: string;
}

export interface FakePushService {
  ca: string;
  /** Makes a subscription whose private key stays here (the endpoint is unique to it). */
  subscribe(): TestSubscription;
  received: ReceivedPush[];
  /** Requests refused (a bad JWT, a payload that does not decrypt), with why. */
  refused: string[];
  /** The status the next POSTs to `endpoint` get instead of 201 (410: the browser unsubscribed). */
  answerWith(endpoint: string, status: number): void;
  close(): Promise<void>;
}

export async function startPushService(): Promise<FakePushService> {
  const dir = mkdtempSync(path.join(tmpdir(), 'familiar-push-'));
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'),
  ], { stdio: 'ignore' });
  const ca = readFileSync(path.join(dir, 'cert.pem'), 'utf8');
  const key = readFileSync(path.join(dir, 'key.pem'), 'utf8');
  rmSync(dir, { recursive: true, force: true });

  const devices = new Map<string, { ecdh: ECDH; auth: Buffer; endpoint: string }>();
  const statuses = new Map<string, number>();
  const received: ReceivedPush[] = [];
  const refused: string[] = [];
  let base = '';

  const server: Server = createServer({ cert: ca, key }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const endpoint = `${base}${request.url ?? ''}`;
      const refuse = (status: number, why: string) => {
        refused.push(why);
        response.writeHead(status, { 'Content-Type': 'text/plain' }).end(why);
      };
      const device = devices.get(request.url ?? '');
      if (request.method !== 'POST' || !device) return refuse(404, 'no such subscription');
      const status = statuses.get(endpoint);
      if (status !== undefined) return refuse(status, `answered ${status} as asked`);
      const ttl = Number(request.headers.ttl);
      if (!Number.isInteger(ttl) || ttl < 0) return refuse(400, 'TTL header missing or not a number (RFC 8030 5.2)');
      const vapid = checkVapid(String(request.headers.authorization ?? ''), base);
      if (typeof vapid === 'string') return refuse(403, vapid);
      if (request.headers['content-encoding'] !== 'aes128gcm') return refuse(415, 'Content-Encoding must be aes128gcm (RFC 8291)');
      let text: string;
      try {
        text = decrypt(Buffer.concat(chunks), device.ecdh, device.auth);
      } catch (error) {
        return refuse(400, `payload did not decrypt: ${(error as Error).message}`);
      }
      const urgency = request.headers.urgency;
      received.push({ endpoint, ttl, urgency: typeof urgency === 'string' ? urgency : undefined, claims: vapid.claims, vapidKey: vapid.key, text });
      response.writeHead(201, { Location: `${endpoint}/messages/${received.length}` }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    ca, received, refused,
    subscribe() {
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const auth = randomBytes(16);
      const pathname = `/push/${randomBytes(12).toString('base64url')}`;
      const endpoint = `${base}${pathname}`;
      devices.set(pathname, { ecdh, auth, endpoint });
      return { endpoint, keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') } };
    },
    answerWith: (endpoint, status) => void statuses.set(endpoint, status),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** RFC 8292: `vapid t=JWT, k=KEY`; the JWT is ES256, signed by KEY, for this service's origin, not expired. */
function checkVapid(header: string, origin: string): { claims: ReceivedPush['claims']; key: string } | string {
  const match = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+), k=([\w-]+)$/.exec(header);
  if (!match) return 'Authorization is not "vapid t=…, k=…"';
  const [headerPart, claimsPart, signature] = (match[1] ?? '').split('.') as [string, string, string];
  const keyBytes = Buffer.from(match[2] ?? '', 'base64url');
  if (keyBytes.length !== 65 || keyBytes[0] !== 4) return 'k= is not an uncompressed P-256 point';
  const publicKey = createPublicKey({
    format: 'jwk', key: { kty: 'EC', crv: 'P-256', x: keyBytes.subarray(1, 33).toString('base64url'), y: keyBytes.subarray(33).toString('base64url') },
  });
  const alg = (JSON.parse(Buffer.from(headerPart, 'base64url').toString()) as { alg?: string }).alg;
  if (alg !== 'ES256') return `JWT alg is ${String(alg)}, not ES256`;
  // JWS ES256 signatures are r||s (IEEE P1363), not DER.
  const valid = verify('sha256', Buffer.from(`${headerPart}.${claimsPart}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));
  if (!valid) return 'JWT signature does not verify with k=';
  const claims = JSON.parse(Buffer.from(claimsPart, 'base64url').toString()) as ReceivedPush['claims'];
  if (claims.aud !== origin) return `JWT aud is ${claims.aud}, not ${origin}`;
  const now = Date.now() / 1000;
  if (!(claims.exp > now && claims.exp <= now + 24 * 3600)) return 'JWT exp is not within the next 24 hours';
  if (!/^(mailto:|https:)/.test(claims.sub ?? '')) return 'JWT sub is not a mailto: or https: URL';
  return { claims, key: match[2] ?? '' };
}

/**
 * RFC 8188 with RFC 8291's keys: header = salt(16) rs(4) idlen(1) keyid (the sender's ephemeral public key), then
 * one record: AES-128-GCM of the text, a 0x02 delimiter (the last record) and zero padding.
 */
function decrypt(body: Buffer, ecdh: ECDH, auth: Buffer): string {
  const salt = body.subarray(0, 16);
  const idLength = body[20] ?? 0;
  const senderKey = body.subarray(21, 21 + idLength);
  const record = body.subarray(21 + idLength);
  const secret = ecdh.computeSecret(senderKey);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), ecdh.getPublicKey(), senderKey]);
  const ikm = Buffer.from(hkdfSync('sha256', secret, auth, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const plain = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  let end = plain.length - 1;
  while (end >= 0 && plain[end] === 0) end -= 1;
  if (plain[end] !== 2) throw new Error('no last-record delimiter (0x02)');
  return plain.subarray(0, end).toString('utf8');
}
