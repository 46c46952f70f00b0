import { RateLimiterRes } from 'rate-limiter-flexible';
import { isIPv6 } from 'node:net';
import { sha256 } from '../lib/secrets.js';
import type { Counter } from '../stores/counter-store.js';
import type { Stores } from '../stores/stores.js';

/** Sign-in attempts allowed per email address and per client IP in a window; successes are given back. */
export const LOGIN_LIMITS = {
  perAccount: { points: 10, duration: 15 * 60 },
  perIp: { points: 100, duration: 60 * 60 },
};

/** Less than this left in a window, a give-back could land in the next window as credit: skip it. */
const GIVE_BACK_MARGIN_MS = 5_000;

/** One reserved attempt: refused (seconds to wait), or allowed, to be settled when the password was right. */
export type LoginAttempt = { allowed: false; retryAfter: number } | { allowed: true; succeeded(): Promise<void> };

export interface LoginThrottle {
  /** Counts one attempt for this email and this IP before the password is checked; refused when either is spent. */
  reserve(ip: string, email: string): Promise<LoginAttempt>;
}

/**
 * The per-account counter's key: the address as typed, lower case; one too long for the counters' 255-character
 * key column (with its prefix) is counted by its SHA-256 instead (PostgreSQL refused it: a 500).
 */
export function accountKey(email: string): string {
  const key = email.trim().toLowerCase();
  return key.length > 200 ? `sha256:${sha256(key)}` : key;
}

/**
 * The per-address counter's key. An IPv6 client usually holds a whole /64 (SLAAC, privacy addresses),
 * so it is counted per /64, not per address; IPv4 (also IPv4-mapped IPv6) per address.
 */
export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!isIPv6(ip)) return ip;
  const [head = '', tail = ''] = ip.toLowerCase().split('%')[0]!.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = ip.includes('::')
    ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/** Counts sign-in attempts in the database, atomically, so parallel requests and every instance count alike. */
export function createLoginThrottle(stores: Stores, onReject: () => void = () => {}): LoginThrottle {
  const byAccount = stores.counter('login_account', LOGIN_LIMITS.perAccount);
  const byIp = stores.counter('login_ip', LOGIN_LIMITS.perIp);
  // Unknown and known addresses are counted alike: the throttle reveals nothing about which exist.

  /** consume() is one atomic upsert: over the limit it rejects with the counter, which we keep as the answer. */
  const take = (limiter: Counter, key: string) =>
    limiter.consume(key).then(
      (res) => ({ res, over: false }),
      (err: unknown) => {
        if (err instanceof RateLimiterRes) return { res: err, over: true };
        throw err;
      },
    );

  /** Gives points back while their window is surely still open (else they would be credit in the next). */
  const giveBack = async (limiter: Counter, key: string, points: number, windowEnds: number) => {
    if (Date.now() < windowEnds - GIVE_BACK_MARGIN_MS) await limiter.reward(key, points);
  };

  return {
    async reserve(ip, email) {
      const key = accountKey(email);
      const address = addressKey(ip);
      const startedAt = Date.now();
      const [account, network] = await Promise.all([take(byAccount, key), take(byIp, address)]);
      if (account.over || network.over) {
        onReject();
        const waits = [account, network].filter((t) => t.over).map((t) => Math.ceil(t.res.msBeforeNext / 1000));
        return { allowed: false, retryAfter: Math.max(1, ...waits) };
      }
      return {
        allowed: true,
        // The account forgives the failures counted up to this attempt (not those reserved since, in
        // parallel); the address only gets this attempt's own point back, so successes never launder it.
        succeeded: () =>
          Promise.all([
            giveBack(byAccount, key, account.res.consumedPoints, startedAt + account.res.msBeforeNext),
            giveBack(byIp, address, 1, startedAt + network.res.msBeforeNext),
          ]).then(() => undefined),
      };
    },
  };
}
