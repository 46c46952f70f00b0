import { RateLimiterPostgres, RateLimiterSQLite, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { isSqlite } from './dialect.js';
import type { Db } from './database.js';

/** Points per window, for one kind of counter. */
export interface CounterLimits {
  points: number;
  /** Seconds. */
  duration: number;
}

/** Atomic per-key counters in a window: what every throttle and the API budget count with. */
export type Counter = RateLimiterAbstract;

/**
 * A counter in the rate_limits table: one atomic upsert per count, so parallel requests and every instance
 * sharing the database count alike. `keyPrefix` keeps each kind of counter apart.
 */
export function createCounter(db: Db, keyPrefix: string, limits: CounterLimits): Counter {
  const options = {
    storeClient: db,
    storeType: 'knex',
    tableName: 'rate_limits',
    tableCreated: true,
    keyPrefix,
    ...limits,
  };
  return isSqlite(db) ? new RateLimiterSQLite(options) : new RateLimiterPostgres(options);
}
