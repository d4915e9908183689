import { BlockList, isIP } from 'node:net';

/**
 * Address classification for the `http` tool's SSRF guard. Contract: never throws; anything that is not a
 * well-formed IP address is reported as blocked ("not an IP address") so an odd resolver answer fails closed.
 */

export type AddressCategory =
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'metadata'
  | 'cgnat'
  | 'multicast'
  | 'unspecified'
  | 'reserved'
  | 'unique-local'
  | 'site-local';

export type AddressVerdict = { blocked: false } | { blocked: true; category: AddressCategory | 'invalid'; reason: string };

interface Range {
  category: AddressCategory;
  list: BlockList;
}

function range(category: AddressCategory, cidrs: Array<[string, number]>, family: 'ipv4' | 'ipv6'): Range {
  const list = new BlockList();
  for (const [network, prefix] of cidrs) {
    if (prefix === (family === 'ipv4' ? 32 : 128)) list.addAddress(network, family);
    else list.addSubnet(network, prefix, family);
  }
  return { category, list };
}

// Order matters: the first match names the reason (metadata before link-local).
const IPV4_RANGES: readonly Range[] = [
  // Cloud instance metadata (AWS, GCP, Azure, OpenStack) and Alibaba's; credentials live there.
  range('metadata', [['169.254.169.254', 32], ['169.254.170.2', 32], ['100.100.100.200', 32]], 'ipv4'),
  range('unspecified', [['0.0.0.0', 8]], 'ipv4'),
  range('loopback', [['127.0.0.0', 8]], 'ipv4'),
  range('private', [['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16]], 'ipv4'),
  range('link-local', [['169.254.0.0', 16]], 'ipv4'),
  range('cgnat', [['100.64.0.0', 10]], 'ipv4'),
  range('multicast', [['224.0.0.0', 4]], 'ipv4'),
  // IETF protocol assignments, benchmarking, and 240/4 (with the broadcast address).
  range('reserved', [['192.0.0.0', 24], ['198.18.0.0', 15], ['240.0.0.0', 4]], 'ipv4'),
];

const IPV6_RANGES: readonly Range[] = [
  // AWS's IPv6 metadata endpoint (inside fc00::/7, named for a clearer message).
  range('metadata', [['fd00:ec2::254', 128]], 'ipv6'),
  range('unspecified', [['::', 128]], 'ipv6'),
  range('loopback', [['::1', 128]], 'ipv6'),
  range('link-local', [['fe80::', 10]], 'ipv6'),
  range('site-local', [['fec0::', 10]], 'ipv6'),
  range('unique-local', [['fc00::', 7]], 'ipv6'),
  range('multicast', [['ff00::', 8]], 'ipv6'),
  // Discard-only prefix.
  range('reserved', [['100::', 64]], 'ipv6'),
];

const REASONS: Record<AddressCategory, string> = {
  loopback: 'a loopback address (this machine)',
  private: 'a private network address',
  'link-local': 'a link-local address',
  metadata: 'a cloud metadata address',
  cgnat: 'a carrier-grade NAT (100.64.0.0/10) address',
  multicast: 'a multicast address',
  unspecified: 'the unspecified address',
  reserved: 'a reserved address',
  'unique-local': 'a unique-local IPv6 address (fc00::/7)',
  'site-local': 'a site-local IPv6 address',
};

/** Strips the brackets of an IPv6 URL host (`[::1]`) and a zone id (`fe80::1%eth0`). */
export function bareAddress(host: string): string {
  const unbracketed = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const zone = unbracketed.indexOf('%');
  return zone === -1 ? unbracketed : unbracketed.slice(0, zone);
}

export function classifyAddress(input: string): AddressVerdict {
  const address = bareAddress(input);
  const family = isIP(address);
  if (family === 4) return classifyV4(address);
  if (family === 6) {
    // An IPv4 address carried inside IPv6 (mapped, compatible, NAT64, 6to4) reaches the IPv4 host.
    const embedded = embeddedIpv4(address);
    if (embedded) {
      const verdict = classifyV4(embedded);
      if (verdict.blocked) return { ...verdict, reason: `${verdict.reason} (${embedded} inside ${address})` };
    }
    for (const { category, list } of IPV6_RANGES) {
      if (list.check(address, 'ipv6')) return blocked(category);
    }
    return { blocked: false };
  }
  return { blocked: true, category: 'invalid', reason: `"${input}" is not an IP address` };
}

function classifyV4(address: string): AddressVerdict {
  for (const { category, list } of IPV4_RANGES) {
    if (list.check(address, 'ipv4')) return blocked(category);
  }
  return { blocked: false };
}

function blocked(category: AddressCategory): AddressVerdict {
  return { blocked: true, category, reason: REASONS[category] };
}

/** The IPv4 address inside ::ffff:a.b.c.d, ::a.b.c.d, 64:ff9b::a.b.c.d and 2002:AABB:CCDD::/48, if any. */
export function embeddedIpv4(address: string): string | undefined {
  const words = ipv6Words(address);
  if (!words) return undefined;
  const v4 = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  const zeros = (from: number, to: number) => words.slice(from, to).every((word) => word === 0);
  const [w0, w1, , , , w5, w6 = 0, w7 = 0] = words;
  if (zeros(0, 5) && w5 === 0xffff) return v4(w6, w7); // IPv4-mapped
  if (zeros(0, 6) && (w6 !== 0 || w7 > 1)) return v4(w6, w7); // IPv4-compatible (deprecated), not :: or ::1
  if (w0 === 0x64 && w1 === 0xff9b && zeros(2, 6)) return v4(w6, w7); // NAT64 well-known prefix
  if (w0 === 0x2002) return v4(words[1] ?? 0, words[2] ?? 0); // 6to4
  return undefined;
}

/** The eight 16-bit words of an IPv6 address (accepts a trailing dotted IPv4 part). */
function ipv6Words(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const parts = dotted[1].split('.').map(Number);
    const [a = 0, b = 0, c = 0, d = 0] = parts;
    text = `${text.slice(0, -dotted[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string | undefined) => (part ? part.split(':').map((word) => parseInt(word, 16)) : []);
  const head = parse(halves[0]);
  const tail = parse(halves[1]);
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0;
  const words = [...head, ...new Array<number>(Math.max(fill, 0)).fill(0), ...tail];
  if (words.length !== 8 || words.some((word) => Number.isNaN(word))) return undefined;
  return words;
}

/** What the operator opened up: `tools.http.allow_private` and `tools.http.allow_hosts`. */
export interface AddressRules {
  allowPrivate: boolean;
  /** Host names (`nas.lan`), wildcards (`*.lan`), addresses (`192.168.1.10`) or CIDR ranges (`192.168.1.0/24`). */
  allowHosts: readonly string[];
  /**
   * Exact origins (`http://127.0.0.1:8123`) that may be private: an HTTP preset's base_url. Pinned to scheme, host
   * and port, so a preset on one port of a machine does not open its other ports.
   */
  allowOrigins?: readonly string[];
}

/**
 * The origins of preset base URLs: the operator named them, so the private-address guard lets requests to
 * exactly those origins through (scheme, host and port; not the host's other ports).
 */
export function presetOriginsOf(presets: Readonly<Record<string, { base_url: string }>>): string[] {
  const origins: string[] = [];
  for (const preset of Object.values(presets)) {
    try {
      origins.push(new URL(preset.base_url).origin);
    } catch {
      // Validated by the config schema; nothing to add.
    }
  }
  return origins;
}

/** True when the URL host itself is listed in allow_hosts (by name, wildcard or literal address). */
export function hostAllowed(host: string, allowHosts: readonly string[]): boolean {
  const name = bareAddress(host).toLowerCase().replace(/\.$/, '');
  for (const raw of allowHosts) {
    const entry = bareAddress(raw.trim()).toLowerCase().replace(/\.$/, '');
    if (entry === '' || entry.includes('/')) continue;
    if (entry.startsWith('*.')) {
      if (name.endsWith(entry.slice(1))) return true;
    } else if (entry === name) {
      return true;
    }
  }
  return false;
}

/** True when a CIDR or address entry of allow_hosts contains `address`. */
function addressAllowed(address: string, allowHosts: readonly string[]): boolean {
  const bare = bareAddress(address);
  const family = isIP(bare);
  if (family === 0) return false;
  for (const raw of allowHosts) {
    const [network = '', prefixText] = raw.trim().split('/');
    const networkAddress = bareAddress(network);
    const networkFamily = isIP(networkAddress);
    if (networkFamily !== family) continue;
    const list = new BlockList();
    const type = family === 4 ? 'ipv4' : 'ipv6';
    const prefix = prefixText === undefined ? (family === 4 ? 32 : 128) : Number(prefixText);
    if (!Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128)) continue;
    list.addSubnet(networkAddress, prefix, type);
    if (list.check(bare, type)) return true;
  }
  return false;
}

/**
 * Decides whether a connection to `address` (resolved from `host`, for a request to `origin`) may go ahead.
 * An `allow_hosts` entry opens a host on every port; a preset's origin opens that origin only. allow_private opens
 * loopback and private ranges but not cloud metadata addresses, which only an explicit allow_hosts entry opens.
 */
export function checkDestination(host: string, address: string, rules: AddressRules, origin?: string): AddressVerdict {
  if (hostAllowed(host, rules.allowHosts) || addressAllowed(address, rules.allowHosts)) return { blocked: false };
  if (origin !== undefined && rules.allowOrigins?.includes(origin) === true) return { blocked: false };
  const verdict = classifyAddress(address);
  if (!verdict.blocked) return verdict;
  if (rules.allowPrivate && verdict.category !== 'metadata' && verdict.category !== 'invalid') return { blocked: false };
  return verdict;
}
