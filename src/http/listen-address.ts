import { isIP } from 'node:net';
import { ConfigError } from '../errors.js';

export interface ListenAddress {
  host: string;
  port: number;
  /** Only this machine can connect (127.0.0.0/8, ::1, localhost). */
  loopback: boolean;
}

/**
 * Parses `http.listen`: `127.0.0.1:8484`, `localhost:8484`, `[::1]:8484`, `0.0.0.0:8484`, or a bare
 * port (`8484`, meaning loopback: an address open to the network must be written out on purpose).
 * Contract: throws ConfigError naming `http.listen` for anything else.
 */
export function parseListenAddress(value: string): ListenAddress {
  const text = value.trim();
  let host: string;
  let portText: string;
  if (/^\d+$/.test(text)) {
    host = '127.0.0.1';
    portText = text;
  } else if (text.startsWith('[')) {
    const end = text.indexOf(']');
    host = text.slice(1, end);
    portText = end > 0 && text[end + 1] === ':' ? text.slice(end + 2) : '';
  } else {
    const colon = text.lastIndexOf(':');
    host = colon > 0 ? text.slice(0, colon) : '';
    portText = colon > 0 ? text.slice(colon + 1) : '';
    if (host.includes(':')) throw new ConfigError('http.listen', `"${value}": write an IPv6 address in brackets, e.g. [::1]:8484`);
  }
  const port = Number(portText);
  if (!host || !/^\d+$/.test(portText) || port > 65535) {
    throw new ConfigError('http.listen', `"${value}" is not HOST:PORT (e.g. 127.0.0.1:8484)`);
  }
  if (host !== 'localhost' && isIP(host) === 0) {
    throw new ConfigError('http.listen', `"${host}" is not an IP address; use 127.0.0.1, [::1], 0.0.0.0 or one of this machine's addresses`);
  }
  return { host, port, loopback: isLoopback(host) };
}

function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}

/** The address a client on this machine connects to: a wildcard bind is reached on loopback. */
export function clientHost(address: ListenAddress): string {
  if (address.host === '0.0.0.0') return '127.0.0.1';
  if (address.host === '::') return '::1';
  return address.host;
}

/** `http://host:port` with IPv6 hosts bracketed. */
export function baseUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
