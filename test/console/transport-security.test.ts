import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { transportAllowed } from '../../src/console/security.js';

function request(peer: string, headers: Record<string, string>): IncomingMessage {
  return { socket: { remoteAddress: peer }, headers } as unknown as IncomingMessage;
}

describe('the console without TLS', () => {
  it('answers a browser on this machine', () => {
    expect(transportAllowed(request('127.0.0.1', { host: '127.0.0.1:8484' }), undefined)).toBe(true);
    expect(transportAllowed(request('::ffff:127.0.0.1', { host: 'localhost:8484' }), undefined)).toBe(true);
  });

  it('answers the host\'s browser through a port Docker publishes on the host\'s loopback', () => {
    expect(transportAllowed(request('172.17.0.1', { host: '127.0.0.1:8484' }), undefined)).toBe(true);
  });

  it('refuses a browser on another machine over plain HTTP', () => {
    expect(transportAllowed(request('192.168.1.20', { host: '192.168.1.5:8484' }), undefined)).toBe(false);
  });

  it('refuses a forwarded-proto claim unless the public URL is https', () => {
    expect(transportAllowed(request('192.168.1.20', { host: 'familiar.lan', 'x-forwarded-proto': 'https' }), 'http://familiar.lan')).toBe(false);
  });

  it('answers through a TLS proxy on another machine when the public URL is https', () => {
    expect(transportAllowed(request('192.168.1.2', { host: 'familiar.example.org', 'x-forwarded-proto': 'https' }), 'https://familiar.example.org')).toBe(true);
    expect(transportAllowed(request('192.168.1.2', { host: 'familiar.example.org', 'x-forwarded-proto': 'http' }), 'https://familiar.example.org')).toBe(false);
  });
});
