import type { Response } from 'express';
import type { RateLimited, RateLimitState } from '../services/rate-limit.js';
import { sendJsonError } from './json-error.js';
import { sendOAuthError } from './oauth-error.js';

/** The X-RateLimit-* headers of a state (reset in epoch seconds, as GitHub sends it). */
export function rateLimitHeaders(s: RateLimitState): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(s.limit),
    'X-RateLimit-Remaining': String(s.remaining),
    'X-RateLimit-Used': String(s.used),
    'X-RateLimit-Reset': String(Math.ceil(s.resetAt / 1000)),
  };
}

/** Seconds until a spent budget comes back, as `Retry-After` says it. */
export const retryAfter = (err: RateLimited): string => String(err.retryAfterSeconds);

/** The one 429 of a spent budget: its headers and `Retry-After`, in the route's error format. */
export function sendRateLimited(res: Response, err: RateLimited, format: 'graphql' | 'oauth'): void {
  res.set({ ...rateLimitHeaders(err.state), 'Retry-After': retryAfter(err) });
  if (format === 'graphql') sendJsonError(res, 429, 'RATE_LIMITED', err.message);
  else sendOAuthError(res, 429, 'rate_limited', err.message);
}
