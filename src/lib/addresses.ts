import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import ipaddr from 'ipaddr.js';
import { printable } from './text.js';

// Which addresses an outbound request may reach, and the hosts an operator exempts from that rule.

/** How a refused range is named in a message ("127.0.0.1 is a loopback address"). */
const RANGE_WORDS: Record<string, string> = {
  unspecified: 'an unspecified address',
  loopback: 'a loopback address',
  private: 'a private address',
  linkLocal: 'a link-local address',
  uniqueLocal: 'a unique-local address',
  deprecatedSiteLocal: 'a site-local address',
  carrierGradeNat: 'a carrier-grade NAT address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved address',
  ipv4Mapped: 'an IPv4-mapped address',
  rfc6145: 'an IPv4-translated address',
  rfc6052: 'a NAT64 address',
  '6to4': 'a 6to4 address',
  teredo: 'a Teredo address',
  ipv4Compatible: 'an IPv4-compatible address',
};

/** Global unicast IPv6 (IANA): everything outside 2000::/3 is special-purpose or unassigned. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
/** The deprecated IPv4-compatible form (::a.b.c.d), which ipaddr.js calls unicast. */
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');

/** The range an address falls in: `unicast` is the only public one. */
function rangeOf(address: ipaddr.IPv4 | ipaddr.IPv6): string {
  if (address.kind() === 'ipv4') return address.range();
  const v6 = address as ipaddr.IPv6;
  // A zone names a local interface: no global address carries one.
  if (v6.zoneId !== undefined) return 'linkLocal';
  const range = v6.range();
  if (range !== 'unicast') return range;
  if (v6.match(IPV4_COMPATIBLE)) return 'ipv4Compatible';
  return v6.match(GLOBAL_UNICAST_V6) ? 'unicast' : 'reserved';
}

/** IPv6 forms that carry an IPv4 address in their low 32 bits. */
const V4_IN_LOW_BITS = ['::ffff:0:0/96', '::ffff:0:0:0/96', '64:ff9b::/96', '::/96'].map((c) =>
  ipaddr.IPv6.parseCIDR(c),
);
const SIX_TO_FOUR = ipaddr.IPv6.parseCIDR('2002::/16');
const EMBEDDING = new Set(['ipv4Mapped', 'rfc6145', 'rfc6052', '6to4', 'ipv4Compatible']);

/** The IPv4 address an IPv6 form carries, named in messages so the real target shows. */
function embeddedV4(v6: ipaddr.IPv6): string | undefined {
  const [, p1 = 0, p2 = 0, , , , p6 = 0, p7 = 0] = v6.parts;
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]).toString();
  if (V4_IN_LOW_BITS.some((cidr) => v6.match(cidr))) return v4(p6, p7);
  return v6.match(SIX_TO_FOUR) ? v4(p1, p2) : undefined;
}

/** An address parsed in any spelling ipaddr.js reads (dotted, hex, octal, one to four parts, v6); undefined if none. */
function parse(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  return ipaddr.isValid(bare) ? ipaddr.parse(bare) : undefined;
}

/**
 * Why an outbound request must not go to `address`, as a sentence ("10.0.0.1 is a private address"), or
 * undefined when it is a public unicast address. Anything that does not parse as an address is refused.
 */
export function addressRefusal(address: string): string | undefined {
  const parsed = parse(address);
  if (!parsed) return `${printable(address, 60)} is not an IP address`;
  const range = rangeOf(parsed);
  if (range === 'unicast') return undefined;
  const shown = parsed.toString();
  const words = RANGE_WORDS[range] ?? `a special-purpose address (${range})`;
  const inner = EMBEDDING.has(range) ? embeddedV4(parsed as ipaddr.IPv6) : undefined;
  return inner ? `${shown} is ${words} of ${inner}` : `${shown} is ${words}`;
}

/** Whether an outbound request may go to `address`: a public unicast address, in whatever spelling. */
export const isPublicAddress = (address: string): boolean => addressRefusal(address) === undefined;

/** The canonical text of an IP literal (`[::1]` and `0:0::1` → `::1`, `0x7f.1` → `127.0.0.1`); undefined for a name. */
export function canonicalAddress(host: string): string | undefined {
  const parsed = parse(host);
  return parsed?.toString();
}

/**
 * A host as allow-list entries and URLs are compared: lower case, ASCII (IDNA), without the root's trailing
 * dot, IP literals in canonical form. Exact match only: no wildcards, no parent domains.
 */
export function normalizeHost(host: string): string {
  const address = canonicalAddress(host);
  if (address) return address;
  const ascii = domainToASCII(host.trim()) || host.trim().toLowerCase();
  return ascii.endsWith('.') ? ascii.slice(0, -1) : ascii;
}

/** A host name: dot-separated labels of letters, digits, hyphens and underscores. */
const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/**
 * The hosts of a WEBHOOK_ALLOW_HOSTS value: comma-separated host names or IP literals, compared
 * case-insensitively and exactly. Throws an Error naming the first entry that is neither.
 */
export function parseAllowHosts(setting: string | undefined): ReadonlySet<string> {
  const hosts = new Set<string>();
  for (const entry of (setting ?? '').split(',')) {
    const trimmed = entry.trim();
    if (!trimmed) continue;
    const host = normalizeHost(trimmed);
    // A bare number or dotted-number list is an address spelling, so only strict literals count as addresses.
    const literal = isIP(trimmed.replace(/^\[(.*)\]$/, '$1')) !== 0;
    if (!literal && (canonicalAddress(trimmed) || !HOST_NAME.test(host))) {
      throw new Error(`${JSON.stringify(printable(trimmed, 60))} is not a host name or IP address`);
    }
    hosts.add(host);
  }
  return hosts;
}

/** Whether `host` (a URL's hostname, brackets and all) is one of the allowed hosts. */
export const isAllowedHost = (host: string, allowed: ReadonlySet<string>): boolean =>
  allowed.size > 0 && allowed.has(normalizeHost(host));

const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** One proxy as Express's `trust proxy` names it: a named range, an address, or an address/prefix. */
export function isProxyAddress(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0 || address.includes('%')) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) >= 1 && Number(prefix) <= (family === 4 ? 32 : 128);
}
