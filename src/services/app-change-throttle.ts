import { RateLimiterRes } from 'rate-limiter-flexible';
import type { Stores } from '../stores/stores.js';

/**
 * App changes a user may make at the account pages in a window: registrations, redirect URI edits, new
 * secrets and app tokens, and webhooks added, test pings and redeliveries. An app change moves the auth epoch,
 * which every instance's bearer cache checks; a webhook added resolves its host in production, and a ping or
 * redelivery has Roster send a request to an address the user chose: one account must not make any of them
 * in a loop. The CLI (the
 * operator) is not counted.
 */
export const APP_CHANGE_LIMITS = { perUser: { points: 20, duration: 60 * 60 } };

/** Less than this left in a window, a give-back could land in the next window as credit: skip it. */
const GIVE_BACK_MARGIN_MS = 5_000;

/** One reserved change: refused (seconds to wait), or allowed, to be given back when nothing changed. */
export type AppChange = { allowed: false; retryAfter: number } | { allowed: true; refused(): Promise<void> };

export interface AppChangeThrottle {
  /** Counts one change by this user before it is made; refused when the user's budget is spent. */
  reserve(userId: number): Promise<AppChange>;
}

/** Counted in the database's rate_limits table, atomically, so parallel requests and every instance count alike. */
export function createAppChangeThrottle(stores: Stores, onReject: () => void = () => {}): AppChangeThrottle {
  const limiter = stores.counter('app_changes', APP_CHANGE_LIMITS.perUser);
  return {
    async reserve(userId) {
      const key = String(userId);
      const startedAt = Date.now();
      let res: RateLimiterRes;
      try {
        res = await limiter.consume(key);
      } catch (err) {
        if (!(err instanceof RateLimiterRes)) throw err;
        onReject();
        return { allowed: false, retryAfter: Math.max(1, Math.ceil(err.msBeforeNext / 1000)) };
      }
      return {
        allowed: true,
        // Input the service refused changed nothing: a user who mistypes is not locked out.
        refused: async () => {
          if (Date.now() < startedAt + res.msBeforeNext - GIVE_BACK_MARGIN_MS) await limiter.reward(key, 1);
        },
      };
    },
  };
}

/** The one-line reason a refused change is given, with the wait in whole minutes. */
export function appChangeRefusal(retryAfter: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfter / 60));
  return `Too many app changes from your account: try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
}
