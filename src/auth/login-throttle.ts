import {
  RateLimiterPostgres,
  RateLimiterRes,
  RateLimiterSQLite,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { isSqlite, type Db } from '../db/knex.js';

/** Failed sign-ins allowed per email address and per client IP before sign-in is refused for a while. */
export const LOGIN_LIMITS = {
  perAccount: { points: 10, duration: 15 * 60 },
  perIp: { points: 100, duration: 60 * 60 },
};

export interface LoginThrottle {
  /** Seconds until sign-in may be tried again for this email or IP; 0 when it may be tried now. */
  retryAfter(ip: string, email: string): Promise<number>;
  failed(ip: string, email: string): Promise<void>;
  succeeded(email: string): Promise<void>;
}

/** Counts failed sign-ins in the database, so every instance refuses alike (rate-limiter-flexible). */
export function createLoginThrottle(db: Db, onReject: () => void = () => {}): LoginThrottle {
  const make = (keyPrefix: string, limits: { points: number; duration: number }): RateLimiterAbstract => {
    const options = {
      storeClient: db,
      storeType: 'knex',
      tableName: 'rate_limits',
      tableCreated: true,
      keyPrefix,
      ...limits,
    };
    return isSqlite(db) ? new RateLimiterSQLite(options) : new RateLimiterPostgres(options);
  };
  const byAccount = make('login_account', LOGIN_LIMITS.perAccount);
  const byIp = make('login_ip', LOGIN_LIMITS.perIp);
  // Unknown and known addresses are counted alike: the throttle reveals nothing about which exist.
  const accountKey = (email: string) => email.trim().toLowerCase();

  const wait = (res: RateLimiterRes | null, points: number) =>
    res && res.consumedPoints >= points ? Math.max(1, Math.ceil(res.msBeforeNext / 1000)) : 0;

  return {
    async retryAfter(ip, email) {
      const [account, address] = await Promise.all([byAccount.get(accountKey(email)), byIp.get(ip)]);
      const seconds = Math.max(wait(account, LOGIN_LIMITS.perAccount.points), wait(address, LOGIN_LIMITS.perIp.points));
      if (seconds > 0) onReject();
      return seconds;
    },
    async failed(ip, email) {
      const spend = (limiter: RateLimiterAbstract, key: string) =>
        limiter.consume(key).catch((err: unknown) => {
          if (!(err instanceof RateLimiterRes)) throw err;
        });
      await Promise.all([spend(byAccount, accountKey(email)), spend(byIp, ip)]);
    },
    async succeeded(email) {
      await byAccount.delete(accountKey(email));
    },
  };
}
