import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { addressRefusal, canonicalAddress, isAllowedHost } from '../lib/addresses.js';
import { printable } from '../lib/text.js';

// Where an outbound webhook request may go: the host's addresses, resolved once and checked, then pinned.

/** One answer of a resolver: dns.promises.lookup's shape (the family is read from the address). */
export interface ResolvedAddress {
  address: string;
  family?: number;
}

/** Every address of a host name; tests inject one (a real DNS rebinding cannot be staged). */
export type Resolver = (host: string) => Promise<readonly ResolvedAddress[]>;

export const systemResolver: Resolver = (host) => dnsLookup(host, { all: true });

/** The address rule of outbound requests. */
export interface AddressPolicy {
  /** In production only https is sent, and only to public addresses unless the host is allowed. */
  production: boolean;
  /** WEBHOOK_ALLOW_HOSTS, parsed by lib/addresses.ts: hosts exempt from the address rule. */
  allowHosts?: ReadonlySet<string>;
  lookup?: Resolver;
}

export interface CheckedAddress {
  address: string;
  family: 4 | 6;
}

export type Resolution = { ok: true; addresses: CheckedAddress[] } | { ok: false; refused: boolean; reason: string };

/** A URL's host as a resolver and a socket take it: an IPv6 literal without its brackets. */
export const bareHost = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** `promise`, or a rejection as soon as `signal` aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * Every address of `url`'s host (the literal itself for an IP host), each checked against the policy:
 * one refused address refuses the host, so no answer order can pick the bad one.
 */
export async function resolveTarget(url: URL, policy: AddressPolicy, signal?: AbortSignal): Promise<Resolution> {
  const host = bareHost(url);
  let answers: readonly ResolvedAddress[];
  if (isIP(host)) {
    answers = [{ address: host }];
  } else {
    try {
      answers = await untilAborted((policy.lookup ?? systemResolver)(host), signal);
    } catch (err) {
      if (signal?.aborted) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      const why = typeof code === 'string' ? ` (${printable(code, 40)})` : '';
      return { ok: false, refused: false, reason: `${printable(host, 100)} could not be resolved${why}` };
    }
  }
  const addresses: CheckedAddress[] = [];
  for (const answer of answers) {
    // The canonical text is both what is checked and what the socket is given: no second reading of it.
    const address = canonicalAddress(String(answer.address));
    if (!address) return { ok: false, refused: true, reason: addressRefusal(String(answer.address)) ?? '' };
    addresses.push({ address, family: isIP(address) === 6 ? 6 : 4 });
  }
  if (!addresses.length) return { ok: false, refused: false, reason: `${printable(host, 100)} has no address` };
  if (policy.production && !isAllowedHost(url.hostname, policy.allowHosts ?? new Set())) {
    for (const { address } of addresses) {
      const refusal = addressRefusal(address);
      if (refusal) return { ok: false, refused: true, reason: refusal };
    }
  }
  return { ok: true, addresses };
}

/**
 * A socket's `lookup` that answers only the addresses already checked, whatever it is asked: the
 * connection cannot reach an address DNS gives a second time (DNS rebinding).
 */
export function pinnedLookup(addresses: readonly CheckedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    const fitting = addresses.filter((a) => !family || a.family === family);
    if (!fitting.length) {
      const err: NodeJS.ErrnoException = new Error(`no IPv${family} address was checked`);
      err.code = 'ENOTFOUND';
      return callback(err, '');
    }
    if (options.all) return callback(null, fitting);
    callback(null, fitting[0]!.address, fitting[0]!.family);
  };
}
