import { LRUCache } from 'lru-cache';
import { RateLimiterRes } from 'rate-limiter-flexible';
import type { Stores } from '../stores/stores.js';
import { DomainError } from './errors.js';
import type { Viewer } from './viewer.js';

/** Where an owner's hourly budget stands: what Query.rateLimit and the API's rate-limit headers report. */
export interface RateLimitState {
  limit: number;
  /** Points this request cost. */
  cost: number;
  used: number;
  remaining: number;
  /** When the window resets, epoch milliseconds. */
  resetAt: number;
}

export class RateLimited extends DomainError {
  constructor(readonly state: RateLimitState) {
    super(
      `Rate limit of ${state.limit} points per hour exceeded; it resets at ${new Date(state.resetAt).toISOString()}.`,
    );
  }

  get retryAfterSeconds(): number {
    return Math.max(1, Math.ceil((this.state.resetAt - Date.now()) / 1000));
  }
}

/** Rate limits are per token owner: the user at one app, the user (personal access tokens, all of them), or the app. */
export const ownerKey = (viewer: Viewer): string => {
  if (viewer.kind === 'app') return `app:${viewer.appId}`;
  return viewer.appId === null ? `user:${viewer.userId}` : `user:${viewer.userId}:app:${viewer.appId}`;
};

/** How often each instance writes the points it granted without the database. */
export const FLUSH_MS = 100;

/** Points an instance may grant an owner without asking the database: a hundredth of the hourly budget. */
export const batchPointsOf = (pointsPerHour: number): number => Math.floor(pointsPerHour / 100);

/** What this instance knows of an owner's window. */
interface Local {
  /** Points the database had counted at the last write. */
  used: number;
  resetAt: number;
  /** Granted here, not yet written. */
  pending: number;
  /** Being written right now. */
  inflight: number;
}

/**
 * Points per hour per token owner, counted in the database so every instance shares them.
 *
 * Accounting is batched: while an owner's window is known, an instance grants up to `batchPointsOf`
 * points on its own and writes them within FLUSH_MS; past that, or when the budget would run out, it asks
 * the database, which decides. One instance never overspends; N instances together overspend an owner's
 * budget by at most N × batchPointsOf points (each one's last unwritten batch).
 */
export function createRateLimiter(stores: Stores, pointsPerHour: number, onReject: () => void = () => {}) {
  const limiter = stores.counter('gql', { points: pointsPerHour, duration: 3600 });
  const batchPoints = batchPointsOf(pointsPerHour);

  const state = (used: number, resetAt: number, cost: number): RateLimitState => ({
    limit: pointsPerHour,
    cost,
    used,
    remaining: Math.max(0, pointsPerHour - used),
    resetAt,
  });

  // Owners this instance saw over budget, until their window resets: a budget never comes back early,
  // so their next requests are refused before any parsing, without a statement.
  const spentUntil = new LRUCache<string, RateLimitState>({ max: 10_000 });
  const locals = new Map<string, Local>();

  /** Writes `points` for `key` (those granted here and, when `cost` > 0, this request's); the database decides. */
  async function write(key: string, points: number, cost: number): Promise<RateLimitState> {
    const local = locals.get(key);
    if (local) local.inflight += points;
    try {
      const res = await limiter.consume(key, points);
      return learn(key, res, cost);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) {
        if (local && points > cost) local.pending += points - cost; // granted points are owed still
        throw err;
      }
      const over = learn(key, err, cost);
      if (cost > 0) onReject();
      spentUntil.set(key, over, { ttl: Math.max(1, over.resetAt - Date.now()) });
      throw new RateLimited(over);
    } finally {
      if (local) local.inflight -= points;
    }
  }

  /** Takes in what the database said: the count only grows within a window, so the larger one is the latest. */
  function learn(key: string, res: RateLimiterRes, cost: number): RateLimitState {
    const resetAt = Date.now() + res.msBeforeNext;
    const local = locals.get(key);
    if (local && local.resetAt > Date.now() && Math.abs(local.resetAt - resetAt) < 1000) {
      local.used = Math.max(local.used, res.consumedPoints);
    } else if (batchPoints > 0) {
      locals.set(key, { used: res.consumedPoints, resetAt, pending: local?.pending ?? 0, inflight: 0 });
    }
    return state(res.consumedPoints + (locals.get(key)?.pending ?? 0), resetAt, cost);
  }

  /** Writes every owner's points granted here in one statement, however many owners there are. */
  async function flush(): Promise<void> {
    const now = Date.now();
    // Each owner's entry as it was: a request may replace it (a new window) while the write is under way.
    const owed = new Map<string, { local: Local; points: number }>();
    for (const [key, local] of locals) {
      if (local.pending > 0) {
        owed.set(key, { local, points: local.pending });
        local.inflight += local.pending;
        local.pending = 0;
      } else if (local.resetAt <= now && local.inflight === 0) {
        locals.delete(key);
      }
    }
    if (owed.size === 0) return;
    let written: Map<string, RateLimiterRes> | undefined;
    try {
      written = await limiter.addMany(new Map([...owed].map(([key, { points }]) => [key, points])));
    } catch {
      // Not written: the points stay owed, for the next flush.
    }
    for (const [key, { local, points }] of owed) {
      local.inflight -= points;
      const res = written?.get(key);
      if (!res) {
        (locals.get(key) ?? local).pending += points;
        continue;
      }
      const known = learn(key, res, 0);
      // Over budget (granted here within a batch): this instance refuses the owner until the window resets.
      if (res.consumedPoints > pointsPerHour)
        spentUntil.set(key, known, { ttl: Math.max(1, known.resetAt - Date.now()) });
    }
  }
  const flusher = setInterval(() => void flush(), FLUSH_MS).unref();

  return {
    pointsPerHour,
    /** Spends `cost` points of the viewer's budget; throws RateLimited when over it. */
    async consume(viewer: Viewer, cost: number): Promise<RateLimitState> {
      const key = ownerKey(viewer);
      const local = locals.get(key);
      if (local && local.resetAt > Date.now()) {
        const granted = local.used + local.inflight + local.pending + cost;
        if (local.pending + cost <= batchPoints && granted <= pointsPerHour) {
          local.pending += cost;
          return state(granted, local.resetAt, cost);
        }
        const points = local.pending + cost;
        local.pending = 0;
        return write(key, points, cost);
      }
      return write(key, cost, cost);
    },
    /** RateLimited when this instance already saw the viewer's budget spent in the current window. */
    refuseIfSpent(viewer: Viewer): void {
      const over = spentUntil.get(ownerKey(viewer));
      if (over && over.resetAt > Date.now()) {
        onReject();
        throw new RateLimited({ ...over, cost: 0 });
      }
    },
    /** The viewer's budget without spending any (points granted here but not yet written included). */
    async peek(viewer: Viewer): Promise<RateLimitState> {
      const key = ownerKey(viewer);
      const res = await limiter.get(key);
      const local = locals.get(key);
      const unwritten = local ? local.pending + local.inflight : 0;
      return res
        ? state(res.consumedPoints + unwritten, Date.now() + res.msBeforeNext, 0)
        : state(unwritten, Date.now() + 3600_000, 0);
    },
    /** Writes what this instance granted and has not written yet (tests, and shutdown). */
    flush,
    /** Stops the timer and writes what is left. */
    async close(): Promise<void> {
      clearInterval(flusher);
      await flush();
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
