import {
  RateLimiterPostgres,
  RateLimiterRes,
  RateLimiterSQLite,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { isSqlite } from './dialect.js';
import type { Db } from './database.js';

/** Points per window, for one kind of counter. */
export interface CounterLimits {
  points: number;
  /** Seconds. */
  duration: number;
}

/** Atomic per-key counters in a window: what every throttle and the API budget count with. */
export type Counter = RateLimiterAbstract & {
  /**
   * Adds points to many keys in one statement, each as `consume` would (a window that has run out starts
   * again), and never refuses: what each key holds now, by key. Points over the limit are the caller's to judge.
   */
  addMany(points: ReadonlyMap<string, number>): Promise<Map<string, RateLimiterRes>>;
};

// One text for any number of keys (they travel as one JSON array), so PostgreSQL prepares it once.
const ADD_MANY = {
  sqlite: `insert into rate_limits (key, points, expire)
    select value ->> '$.k', value ->> '$.p', ? from json_each(?) where true`,
  postgresql: `insert into rate_limits (key, points, expire)
    select k, p, ?::bigint from json_to_recordset(?::json) as t(k text, p integer)`,
  upsert: `
    on conflict (key) do update set
      points = case when rate_limits.expire is null or rate_limits.expire > ?
        then rate_limits.points + excluded.points else excluded.points end,
      expire = case when rate_limits.expire is null or rate_limits.expire > ?
        then rate_limits.expire else excluded.expire end
    returning key, points, expire`,
};

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
  const sqlite = isSqlite(db);
  const limiter = sqlite ? new RateLimiterSQLite(options) : new RateLimiterPostgres(options);
  const sql = (sqlite ? ADD_MANY.sqlite : ADD_MANY.postgresql) + ADD_MANY.upsert;

  async function addMany(points: ReadonlyMap<string, number>): Promise<Map<string, RateLimiterRes>> {
    const added = new Map<string, RateLimiterRes>();
    if (points.size === 0) return added;
    const now = Date.now();
    const entries = [...points].map(([key, p]) => ({ k: limiter.getKey(key), p }));
    const result: unknown = await db.raw(sql, [now + limits.duration * 1000, JSON.stringify(entries), now, now]);
    const rows = (sqlite ? result : (result as { rows: unknown }).rows) as {
      key: string;
      points: number;
      expire: number | string | null;
    }[];
    for (const row of rows) {
      const consumed = Number(row.points);
      const msBeforeNext = row.expire === null ? -1 : Math.max(Number(row.expire) - Date.now(), 0);
      added.set(
        limiter.parseKey(row.key),
        new RateLimiterRes(Math.max(limits.points - consumed, 0), msBeforeNext, consumed),
      );
    }
    return added;
  }
  return Object.assign(limiter, { addMany });
}
