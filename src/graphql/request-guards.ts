import { isUtf8 } from 'node:buffer';
import type { NextFunction, Request, Response } from 'express';
import { RateLimited, rateLimitHeaders, type RateLimiter } from '../services/rate-limit.js';
import { viewerOf } from '../http/bearer-auth.js';
import { sendJsonError } from '../http/json-error.js';

// The refusals below set no Cache-Control: the /graphql router has set it before any of these run.

/** A POST body must be JSON (GraphQL over HTTP): anything else is 415 before it is read. */
export function requireJsonBody(req: Request, res: Response, next: NextFunction): void {
  if (req.method !== 'POST' || req.is('application/json')) return next();
  res.set('Accept-Post', 'application/json');
  sendJsonError(res, 415, 'UNSUPPORTED_MEDIA_TYPE', 'A POST to /graphql must have Content-Type: application/json.');
}

/** body-parser's verify hook: a body that is not UTF-8 is refused, not decoded into replacement characters. */
export function verifyUtf8(_req: Request, _res: Response, body: Buffer): void {
  if (!isUtf8(body)) {
    throw Object.assign(new Error('The request body is not valid UTF-8.'), { status: 400, expose: true });
  }
}

/** One operation per request: a JSON array (a batch) gets a clear 400 instead of Apollo's terse one. */
export function refuseBatches(req: Request, res: Response, next: NextFunction): void {
  if (!Array.isArray(req.body)) return next();
  sendJsonError(res, 400, 'BAD_REQUEST', 'Batched requests are not supported: send one operation per request.');
}

/** An owner this instance already saw over budget gets its 429 before its body is read or its document parsed. */
export function refuseSpentBudget(limiter: RateLimiter) {
  return (_req: Request, res: Response, next: NextFunction): void => {
    try {
      limiter.refuseIfSpent(viewerOf(res));
    } catch (err) {
      if (!(err instanceof RateLimited)) throw err;
      res.set({ ...rateLimitHeaders(err.state), 'Retry-After': String(err.retryAfterSeconds) });
      return sendJsonError(res, 429, 'RATE_LIMITED', err.message);
    }
    next();
  };
}
