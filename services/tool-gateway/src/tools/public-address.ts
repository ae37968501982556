import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { AppError, SettingError } from '@runledger/kernel';

/**
 * What the browser tools may reach (SSRF guard): only http(s) to hosts whose every address is public. The gateway
 * runs inside the deployment's network, so a loopback, private, link-local (cloud metadata 169.254.169.254) or
 * otherwise non-public address would hand a caller the services behind the boundary.
 */
export type AddressKind = 'public' | 'loopback' | 'private' | 'link-local' | 'unspecified' | 'shared' | 'multicast' | 'reserved';

type Range = readonly [prefix: number[], bits: number, kind: Exclude<AddressKind, 'public'>];

// IANA special-purpose registries. IPv4: everything not listed is public.
const V4: readonly Range[] = [
  [[0], 8, 'unspecified'], // "this network": 0.0.0.0 reaches the local host
  [[10], 8, 'private'],
  [[100, 64], 10, 'shared'], // carrier-grade NAT (RFC 6598)
  [[127], 8, 'loopback'],
  [[169, 254], 16, 'link-local'], // incl. cloud metadata 169.254.169.254
  [[172, 16], 12, 'private'],
  [[192, 0, 0], 24, 'reserved'],
  [[192, 0, 2], 24, 'reserved'],
  [[192, 88, 99], 24, 'reserved'],
  [[192, 168], 16, 'private'],
  [[198, 18], 15, 'reserved'],
  [[198, 51, 100], 24, 'reserved'],
  [[203, 0, 113], 24, 'reserved'],
  [[224], 4, 'multicast'],
  [[240], 4, 'reserved'], // incl. broadcast 255.255.255.255
];

// IPv6: only global unicast (2000::/3) can be public; these parts of it are not. Forms that embed an IPv4 address
// (mapped, NAT64, 6to4) are judged by that address, below.
const V6_IN_GLOBAL: readonly Range[] = [
  [[0x20, 0x01, 0x00], 23, 'reserved'], // IETF protocol assignments, incl. Teredo 2001::/32
  [[0x20, 0x01, 0x0d, 0xb8], 32, 'reserved'], // documentation
  [[0x3f, 0xff], 20, 'reserved'], // documentation
];
const V6_OUTSIDE_GLOBAL: readonly Range[] = [
  [[0xfc], 7, 'private'], // unique local fc00::/7
  [[0xfe, 0x80], 10, 'link-local'],
  [[0xfe, 0xc0], 10, 'private'], // deprecated site-local
  [[0xff], 8, 'multicast'],
];

function inRange(bytes: Uint8Array, [prefix, bits]: Range): boolean {
  for (let i = 0; i * 8 < bits; i++) {
    const mask = bits - i * 8 >= 8 ? 0xff : (0xff << (8 - (bits - i * 8))) & 0xff;
    if ((bytes[i]! & mask) !== ((prefix[i] ?? 0) & mask)) return false;
  }
  return true;
}

function v4Kind(bytes: Uint8Array): AddressKind {
  return V4.find((r) => inRange(bytes, r))?.[2] ?? 'public';
}

function v4Bytes(address: string): Uint8Array {
  return Uint8Array.from(address.split('.').map(Number));
}

/** 16 bytes of a valid IPv6 literal (no brackets, no zone). */
function v6Bytes(address: string): Uint8Array {
  // A dotted IPv4 tail (::ffff:127.0.0.1) as the two hex groups it stands for.
  const text = address.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_, a, b, c, d) => `${((+a << 8) | +b).toString(16)}:${((+c << 8) | +d).toString(16)}`);
  const groups = (s: string) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const [head = '', rest] = text.split('::');
  const front = groups(head);
  const back = rest === undefined ? [] : groups(rest);
  const words = [...front, ...Array(8 - front.length - back.length).fill(0), ...back];
  const bytes = new Uint8Array(16);
  words.forEach((w, i) => ((bytes[i * 2] = w >> 8), (bytes[i * 2 + 1] = w & 0xff)));
  return bytes;
}

function v6Kind(bytes: Uint8Array): AddressKind {
  const zeros = (from: number, to: number) => bytes.subarray(from, to).every((b) => b === 0);
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return v4Kind(bytes.subarray(12)); // ::ffff:a.b.c.d
  if (zeros(0, 15)) return bytes[15] === 1 ? 'loopback' : bytes[15] === 0 ? 'unspecified' : 'reserved';
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12)) return v4Kind(bytes.subarray(12)); // NAT64 64:ff9b::/96
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return v4Kind(bytes.subarray(2, 6)); // 6to4 2002:a.b.c.d::/48
  const outside = V6_OUTSIDE_GLOBAL.find((r) => inRange(bytes, r));
  if (outside) return outside[2];
  if ((bytes[0]! & 0xe0) !== 0x20) return 'reserved'; // not global unicast (incl. ::/96, 100::/64, 64:ff9b:1::/48)
  return V6_IN_GLOBAL.find((r) => inRange(bytes, r))?.[2] ?? 'public';
}

/**
 * The kind of an IP address literal (IPv4 dotted quad, IPv6 with or without brackets or a zone), or undefined for
 * anything else (a name). IPv4-mapped, NAT64 and 6to4 IPv6 addresses are judged by the IPv4 address they carry.
 */
export function addressKind(literal: string): AddressKind | undefined {
  const address = literal.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  const family = isIP(address);
  if (family === 4) return v4Kind(v4Bytes(address));
  if (family === 6) return v6Kind(v6Bytes(address.toLowerCase()));
  return undefined;
}

/** An allow-list entry: a host as a URL names it (after the URL's own normalisation), and a port if one was given. */
export interface AllowedHost {
  readonly host: string;
  readonly port?: string;
}

/**
 * RL_BROWSER_ALLOWED_HOSTS: comma-separated `host` or `host:port` (IPv6 in brackets). An entry lets URLs naming that
 * host (on that port) through whatever it resolves to; it is matched against the host as written in the URL, never
 * against a resolved address. A malformed entry stops the service at start.
 */
export function parseAllowedHosts(text: string | undefined): AllowedHost[] {
  return (text ?? '').split(',').map((s) => s.trim()).filter(Boolean).map((entry) => {
    let url: URL;
    try {
      url = new URL(`http://${entry}`);
    } catch {
      throw new SettingError('RL_BROWSER_ALLOWED_HOSTS', `"${entry.slice(0, 80)}" is not a host or host:port`);
    }
    if (url.pathname !== '/' || url.search || url.hash || url.username || url.password) throw new SettingError('RL_BROWSER_ALLOWED_HOSTS', `"${entry.slice(0, 80)}" is not a host or host:port`);
    const port = /:(\d+)$/.exec(entry)?.[1];
    return { host: url.hostname, ...(port !== undefined ? { port: String(Number(port)) } : {}) };
  });
}

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' };

export type Resolve = (host: string) => Promise<string[]>;
const resolveAll: Resolve = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Where a request may go: the address to connect to (checked, so a second DNS answer cannot differ), or why not. */
export type Destination = { refused: string; connectTo?: undefined } | { refused?: undefined; connectTo: string };

/**
 * Decides where the browser may go: http(s) only, to a host that is allow-listed or whose every address is public.
 * A name that does not resolve is refused: what cannot be checked is not reached.
 */
export class DestinationGuard {
  constructor(private readonly allowed: readonly AllowedHost[] = [], private readonly resolve: Resolve = resolveAll) {}

  /** Why a URL may not be opened (scheme, then host), or undefined if it may. */
  async refusal(raw: string): Promise<string | undefined> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return 'not a URL';
    }
    const port = DEFAULT_PORTS[url.protocol];
    if (port === undefined) return `scheme ${url.protocol} is not allowed`;
    return (await this.destination(url.hostname, url.port || port)).refused;
  }

  /**
   * A host (as a URL's hostname: normalised, IPv6 in brackets) and port: allow-listed, it is connected to by name;
   * else every address it resolves to must be public, and the first is the one connected to.
   */
  async destination(hostname: string, port: string): Promise<Destination> {
    const host = hostname.replace(/^\[(.*)\]$/, '$1');
    if (this.allowed.some((a) => a.host === hostname && (a.port === undefined || a.port === port))) return { connectTo: host };
    // Chromium answers localhost and every *.localhost name itself, with loopback, whatever DNS says.
    if (/(^|\.)localhost\.?$/i.test(host)) return { refused: `${host} is loopback` };
    const literal = addressKind(host);
    if (literal !== undefined) return literal === 'public' ? { connectTo: host } : { refused: `${host} is ${literal}` };
    let addresses: string[];
    try {
      addresses = await this.resolve(host);
    } catch {
      return { refused: `${host} does not resolve` };
    }
    if (addresses.length === 0) return { refused: `${host} does not resolve` };
    for (const address of addresses) {
      const kind = addressKind(address) ?? 'reserved';
      if (kind !== 'public') return { refused: `${host} resolves to ${address} (${kind})` };
    }
    return { connectTo: addresses[0]! };
  }

  /** Throws the tool error TOOL.DESTINATION_DENIED, with the reason for our logs, if the URL may not be opened. */
  async assertAllowed(raw: string): Promise<void> {
    const why = await this.refusal(raw);
    if (why !== undefined) throw destinationDenied(why);
  }
}

export function destinationDenied(why: string): AppError {
  return new AppError('TOOL.DESTINATION_DENIED', `destination refused: ${why}`);
}
