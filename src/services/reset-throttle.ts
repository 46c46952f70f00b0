import { RateLimiterRes } from 'rate-limiter-flexible';
import type { Counter } from '../stores/counter-store.js';
import type { Stores } from '../stores/stores.js';
import { accountKey, addressKey } from './login-throttle.js';

/** Reset mails asked for per email address and per client IP in a window; every request counts. */
export const RESET_LIMITS = {
  perAccount: { points: 3, duration: 60 * 60 },
  perIp: { points: 20, duration: 60 * 60 },
};

export interface ResetThrottle {
  /** Counts one request; undefined when allowed, else the seconds to wait. */
  take(ip: string, email: string): Promise<number | undefined>;
}

/** Counted in the database like sign-in attempts; known and unknown addresses alike, so it reveals nothing. */
export function createResetThrottle(stores: Stores, onReject: () => void = () => {}): ResetThrottle {
  const byAccount = stores.counter('reset_account', RESET_LIMITS.perAccount);
  const byIp = stores.counter('reset_ip', RESET_LIMITS.perIp);
  const over = (limiter: Counter, key: string) =>
    limiter.consume(key).then(
      () => undefined,
      (err: unknown) => {
        if (err instanceof RateLimiterRes) return Math.max(1, Math.ceil(err.msBeforeNext / 1000));
        throw err;
      },
    );
  return {
    async take(ip, email) {
      const waits = await Promise.all([over(byAccount, accountKey(email)), over(byIp, addressKey(ip))]);
      const refused = waits.filter((w): w is number => w !== undefined);
      if (refused.length === 0) return undefined;
      onReject();
      return Math.max(...refused);
    },
  };
}
