import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';

/**
 * Which addresses a webhook may reach, checked when its URL is saved AND when each delivery
 * connects: a host may resolve to a public address when saved and to an internal
 * one later (DNS rebinding), so the delivery connects only to addresses it has just checked.
 */

/** Resolves a host name to every address, as `dns.lookup(host, { all: true })` does. */
export type ResolveAll = (
  hostname: string,
  options: LookupOptions & { all: true },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const systemResolve: ResolveAll = (hostname, options, callback) =>
  dnsLookup(hostname, options, callback);

interface Range {
  v6: boolean;
  network: bigint;
  prefix: number;
  /** What the range is, for the error message; `embedded`: judge the IPv4 address inside. */
  kind: string;
}

const V4_RANGES: [string, number, string][] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared (carrier-grade NAT)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.169.254', 32, 'cloud metadata'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

const V6_RANGES: [string, number, string][] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  // IPv4-mapped, NAT64 and 6to4 addresses lead to the IPv4 address inside them.
  ['::ffff:0:0', 96, 'embedded'],
  ['64:ff9b::', 96, 'embedded'],
  ['2002::', 16, 'embedded'],
  ['::', 96, 'reserved (IPv4-compatible)'],
  ['64:ff9b:1::', 48, 'private'],
  ['100::', 64, 'discard'],
  ['2001::', 23, 'reserved'],
  ['2001:db8::', 32, 'documentation'],
  ['fd00:ec2::254', 128, 'cloud metadata'],
  ['fc00::', 7, 'private (unique local)'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];

function v4Value(address: string): bigint {
  return address.split('.').reduce((value, part) => (value << 8n) | BigInt(Number(part)), 0n);
}

/** An IPv6 address as 128 bits (`isIPv6` has validated it; a zone id is ignored). */
function v6Value(address: string): bigint {
  let text = address.split('%')[0].toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted !== null) {
    const v4 = v4Value(dotted[1]);
    text = `${text.slice(0, dotted.index)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const headParts = head === '' ? [] : head.split(':');
  const tailParts = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - headParts.length - tailParts.length;
  const parts = [
    ...headParts,
    ...Array<string>(tail === undefined ? 0 : missing).fill('0'),
    ...tailParts,
  ];
  return parts.reduce((value, part) => (value << 16n) | BigInt(parseInt(part, 16)), 0n);
}

const RANGES: Range[] = [
  ...V4_RANGES.map(([network, prefix, kind]) => ({
    v6: false,
    network: v4Value(network),
    prefix,
    kind,
  })),
  ...V6_RANGES.map(([network, prefix, kind]) => ({
    v6: true,
    network: v6Value(network),
    prefix,
    kind,
  })),
];

function inRange(value: bigint, bits: number, range: Range): boolean {
  const shift = BigInt(bits - range.prefix);
  return value >> shift === range.network >> shift;
}

/**
 * What makes an IP address one a webhook must not reach ("loopback", "private", "cloud
 * metadata", ...), or null for a public address. IPv4-mapped (`::ffff:127.0.0.1`), NAT64 and
 * 6to4 addresses are judged by the IPv4 address they carry.
 */
export function forbiddenAddressKind(address: string): string | null {
  const family = isIP(address.split('%')[0]);
  if (family === 0) return 'not an IP address';
  if (family === 4) {
    const value = v4Value(address);
    return RANGES.find((range) => !range.v6 && inRange(value, 32, range))?.kind ?? null;
  }
  const value = v6Value(address);
  const range = RANGES.find((candidate) => candidate.v6 && inRange(value, 128, candidate));
  if (range === undefined) return null;
  if (range.kind !== 'embedded') return range.kind;
  // 6to4 carries the IPv4 address in bits 16-47; the others in the last 32 bits.
  const v4 = range.prefix === 16 ? (value >> 80n) & 0xffffffffn : value & 0xffffffffn;
  const dotted = [24n, 16n, 8n, 0n].map((shift) => String((v4 >> shift) & 0xffn)).join('.');
  return forbiddenAddressKind(dotted);
}

/** The problem with the addresses of a host, or null when every one is public. */
function addressesProblem(hostname: string, addresses: readonly string[]): string | null {
  for (const address of addresses) {
    const kind = forbiddenAddressKind(address);
    if (kind !== null) {
      return hostname === address
        ? `${address} is a ${kind} address`
        : `${hostname} resolves to ${address}, a ${kind} address`;
    }
  }
  return null;
}

export interface DestinationRules {
  allowHttp: boolean;
  allowPrivate: boolean;
}

/** A URL's host without IPv6 brackets. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Checks a webhook URL when it is saved: its scheme and, unless private addresses are allowed,
 * every address its host resolves to now. Returns the problem (for `context.url`) or null.
 */
export async function webhookUrlProblem(
  raw: string,
  rules: DestinationRules,
  resolve: ResolveAll = savedUrlResolve,
): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  const schemes = rules.allowHttp ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) {
    return rules.allowHttp ? 'must use https:// or http://' : 'must use https://';
  }
  if (url.hostname === '') return 'must name a host';
  if (rules.allowPrivate) return null;
  const host = hostOf(url);
  if (isIP(host) !== 0) return addressesProblem(host, [host]);
  try {
    // The resolver answers within its time (savedUrlResolve: SAVE_LOOKUP_LIMITS), or fails.
    const addresses = await new Promise<LookupAddress[]>((resolved, rejected) => {
      resolve(host, { all: true }, (error, found) => {
        if (error !== null) rejected(error);
        else resolved(found);
      });
    });
    if (addresses.length === 0) return `${host} does not resolve`;
    return addressesProblem(
      host,
      addresses.map(({ address }) => address),
    );
  } catch {
    return `${host} does not resolve`;
  }
}

/** The error a guarded connection fails with when its host leads somewhere it must not. */
export class ForbiddenDestinationError extends Error {
  readonly code = 'EWEBHOOKDESTINATION';
}

/**
 * The problem with connecting to a URL whose host is an IP address (sockets skip the lookup
 * for those), or null. Host names are checked by {@link guardedLookup} as they connect.
 */
export function literalAddressProblem(url: URL, rules: DestinationRules): string | null {
  const host = hostOf(url);
  if (rules.allowPrivate || isIP(host) === 0) return null;
  return addressesProblem(host, [host]);
}

/** How the lookups of deliveries share libuv's thread pool. */
export interface LookupLimits {
  /** Lookups under way at once; the others wait their turn. */
  concurrency: number;
  /** How long a connection waits for its addresses, its turn included. */
  timeoutMs: number;
}

/**
 * `dns.lookup` (getaddrinfo, which honours /etc/hosts as connections do) runs on libuv's thread
 * pool, four threads shared with the API's file and crypto work: a few slow-resolving webhook
 * hosts would otherwise hold all of them. Two lookups at once leave the rest to the API.
 */
export const DELIVERY_LOOKUP_LIMITS: LookupLimits = { concurrency: 2, timeoutMs: 5000 };
/**
 * The lookups of URLs being saved (POST and PATCH of a webhook) take two slots of their own on
 * the same terms: callers creating webhooks for slow-resolving hosts cannot hold the pool either.
 */
const SAVE_LOOKUP_LIMITS: LookupLimits = { concurrency: 2, timeoutMs: 5000 };

/**
 * Runs at most `concurrency` resolutions at once, in arrival order. A caller that waited
 * `timeoutMs` (queued or resolving) gets an error then; a resolution under way keeps its slot
 * until it really ends, since its thread stays busy until then (getaddrinfo cannot be cancelled).
 */
export function limitedResolve(resolve: ResolveAll, limits: LookupLimits): ResolveAll {
  let running = 0;
  const waiting: (() => void)[] = [];
  const next = (): void => {
    if (running >= limits.concurrency) return;
    const start = waiting.shift();
    if (start === undefined) return;
    running++;
    start();
  };
  return (hostname, options, callback) => {
    let answered = false;
    const start = (): void => {
      resolve(hostname, options, (error, addresses) => {
        running--;
        next();
        if (answered) return;
        answered = true;
        clearTimeout(timer);
        callback(error, addresses);
      });
    };
    const timer = setTimeout(() => {
      if (answered) return;
      answered = true;
      const queued = waiting.indexOf(start);
      if (queued !== -1) waiting.splice(queued, 1);
      const error: NodeJS.ErrnoException = new Error(
        `DNS lookup of ${hostname} timed out after ${limits.timeoutMs} ms` +
          (queued !== -1 ? ` (waited for one of ${limits.concurrency} lookup slots)` : ''),
      );
      error.code = 'ETIMEOUT';
      callback(error, []);
    }, limits.timeoutMs);
    waiting.push(start);
    next();
  };
}

/** The resolver {@link webhookUrlProblem} uses unless given another (tests). */
const savedUrlResolve: ResolveAll = limitedResolve(systemResolve, SAVE_LOOKUP_LIMITS);

/**
 * The `lookup` of a delivery's socket: resolves the host (at most `limits.concurrency` at once,
 * each within `limits.timeoutMs`), refuses the connection when any address is one a webhook must
 * not reach (unless allowed), and hands the socket exactly the addresses it checked, so nothing
 * can change between the check and the connect.
 */
export function guardedLookup(
  rules: DestinationRules,
  resolve: ResolveAll = systemResolve,
  limits: LookupLimits = DELIVERY_LOOKUP_LIMITS,
): LookupFunction {
  const limited = limitedResolve(resolve, limits);
  return (hostname, options, callback) => {
    limited(hostname, { ...options, all: true }, (error, addresses) => {
      if (error !== null) {
        callback(error, '', undefined);
        return;
      }
      const problem = rules.allowPrivate
        ? null
        : addressesProblem(
            hostname,
            addresses.map(({ address }) => address),
          );
      if (problem !== null || addresses.length === 0) {
        callback(
          new ForbiddenDestinationError(problem ?? `${hostname} does not resolve`),
          '',
          undefined,
        );
        return;
      }
      if (options.all === true) {
        callback(null, addresses);
        return;
      }
      const first = addresses[0];
      callback(null, first.address, first.family);
    });
  };
}
