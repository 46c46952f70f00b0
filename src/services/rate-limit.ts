import { LRUCache } from 'lru-cache';
import {
  RateLimiterPostgres,
  RateLimiterRes,
  RateLimiterSQLite,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { isSqlite } from '../lib/dialect.js';
import type { Db } from '../stores/knex.js';
import type { Viewer } from './viewer.js';

/** What the X-RateLimit-* headers and Query.rateLimit report. */
export interface RateLimitState {
  limit: number;
  /** Points this request cost. */
  cost: number;
  used: number;
  remaining: number;
  /** When the window resets, epoch milliseconds. */
  resetAt: number;
}

export class RateLimited extends Error {
  constructor(readonly state: RateLimitState) {
    super(
      `Rate limit of ${state.limit} points per hour exceeded; it resets at ${new Date(state.resetAt).toISOString()}.`,
    );
  }

  get retryAfterSeconds(): number {
    return Math.max(1, Math.ceil((this.state.resetAt - Date.now()) / 1000));
  }
}

/** Rate limits are per token owner: the user at one app, or the app itself. */
export const ownerKey = (viewer: Viewer): string =>
  viewer.kind === 'user' ? `user:${viewer.userId}:app:${viewer.appId}` : `app:${viewer.appId}`;

/** Points per hour per token owner, counted in the database so every instance shares them. */
export async function createRateLimiter(db: Db, pointsPerHour: number, onReject: () => void = () => {}) {
  const options = {
    storeClient: db,
    storeType: 'knex',
    tableName: 'rate_limits',
    tableCreated: true, // by our migration
    points: pointsPerHour,
    duration: 3600,
    keyPrefix: 'gql',
  };
  const limiter: RateLimiterAbstract = isSqlite(db) ? new RateLimiterSQLite(options) : new RateLimiterPostgres(options);

  const state = (res: RateLimiterRes, cost: number): RateLimitState => ({
    limit: pointsPerHour,
    cost,
    used: res.consumedPoints,
    remaining: Math.max(0, pointsPerHour - res.consumedPoints),
    resetAt: Date.now() + res.msBeforeNext,
  });

  // Owners this instance saw over budget, until their window resets: a budget never comes back early,
  // so their next requests are refused before any parsing, without a statement.
  const spentUntil = new LRUCache<string, RateLimitState>({ max: 10_000 });

  return {
    pointsPerHour,
    /** Spends `cost` points of the viewer's budget; throws RateLimited when over it. */
    async consume(viewer: Viewer, cost: number): Promise<RateLimitState> {
      const key = ownerKey(viewer);
      try {
        return state(await limiter.consume(key, cost), cost);
      } catch (err) {
        if (err instanceof RateLimiterRes) {
          onReject();
          const over = state(err, cost);
          spentUntil.set(key, over, { ttl: Math.max(1, over.resetAt - Date.now()) });
          throw new RateLimited(over);
        }
        throw err;
      }
    },
    /** RateLimited when this instance already saw the viewer's budget spent in the current window. */
    refuseIfSpent(viewer: Viewer): void {
      const over = spentUntil.get(ownerKey(viewer));
      if (over && over.resetAt > Date.now()) {
        onReject();
        throw new RateLimited({ ...over, cost: 0 });
      }
    },
    /** The viewer's budget without spending any. */
    async peek(viewer: Viewer): Promise<RateLimitState> {
      const res = await limiter.get(ownerKey(viewer));
      return res
        ? state(res, 0)
        : { limit: pointsPerHour, cost: 0, used: 0, remaining: pointsPerHour, resetAt: Date.now() + 3600_000 };
    },
  };
}

export type RateLimiter = Awaited<ReturnType<typeof createRateLimiter>>;

/** The X-RateLimit-* headers of a state (reset in epoch seconds, as GitHub sends it). */
export function rateLimitHeaders(s: RateLimitState): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(s.limit),
    'X-RateLimit-Remaining': String(s.remaining),
    'X-RateLimit-Used': String(s.used),
    'X-RateLimit-Reset': String(Math.ceil(s.resetAt / 1000)),
  };
}
