import { RateLimiterRes } from 'rate-limiter-flexible';
import type { Stores } from '../stores/stores.js';
import { addressKey } from './login-throttle.js';

export interface AuthorizeThrottle {
  /** Counts one authorization request from this address; undefined when allowed, else the seconds to wait. */
  take(ip: string): Promise<number | undefined>;
}

/** Authorization requests per client address and hour, counted in the database so every instance shares them. */
export function createAuthorizeThrottle(
  stores: Stores,
  perHour: number,
  onReject: () => void = () => {},
): AuthorizeThrottle {
  const byIp = stores.counter('authorize_ip', { points: perHour, duration: 60 * 60 });
  return {
    take: (ip) =>
      byIp.consume(addressKey(ip)).then(
        () => undefined,
        (err: unknown) => {
          if (!(err instanceof RateLimiterRes)) throw err;
          onReject();
          return Math.max(1, Math.ceil(err.msBeforeNext / 1000));
        },
      ),
  };
}
