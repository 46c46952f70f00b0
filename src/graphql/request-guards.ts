import { isUtf8 } from 'node:buffer';
import type { NextFunction, Request, Response } from 'express';
import { RateLimited, type RateLimiter } from '../services/rate-limit.js';
import { sendRateLimited } from '../http/rate-limit-headers.js';
import { viewerOf } from '../http/bearer-auth.js';
import { sendJsonError } from '../http/json-error.js';
import { nestsDeeperThan } from '../lib/json-depth.js';

// The refusals below set no Cache-Control: the /graphql router has set it before any of these run.

/** The charset a Content-Type names, lower-cased; undefined when it names none. */
const charsetOf = (type: string | undefined) => /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(type ?? '')?.[1]?.toLowerCase();

/**
 * A POST body must be JSON in UTF-8 (GraphQL over HTTP): anything else is 415 before it is read. The body
 * parser would decode UTF-7 or UTF-16 too, past the checks that read the raw bytes.
 */
export function requireJsonBody(req: Request, res: Response, next: NextFunction): void {
  if (req.method !== 'POST') return next();
  const charset = charsetOf(req.headers['content-type']);
  if (req.is('application/json') && (charset === undefined || charset === 'utf-8' || charset === 'utf8')) return next();
  res.set('Accept-Post', 'application/json');
  sendJsonError(
    res,
    415,
    'UNSUPPORTED_MEDIA_TYPE',
    'A POST to /graphql must have Content-Type: application/json (in UTF-8).',
  );
}

/** How deep a request's JSON may nest (the body, or a GET's variables and extensions): far past any real use. */
export const MAX_JSON_DEPTH = 64;
const TOO_DEEP = `The request body nests JSON deeper than ${MAX_JSON_DEPTH} levels.`;

const refusal = (message: string) => Object.assign(new Error(message), { status: 400, expose: true });

/**
 * body-parser's verify hook: a body that is not UTF-8 is refused, not decoded into replacement characters;
 * one nested past MAX_JSON_DEPTH is refused before it is parsed (the replay key and logs would walk it).
 */
export function verifyBody(_req: Request, _res: Response, body: Buffer): void {
  if (!isUtf8(body)) throw refusal('The request body is not valid UTF-8.');
  if (nestsDeeperThan(body, MAX_JSON_DEPTH)) throw refusal(TOO_DEEP);
}

/** A GET's JSON parameters get the same depth bound as a POST body. */
export function refuseDeepParameters(req: Request, res: Response, next: NextFunction): void {
  if (req.method !== 'GET') return next();
  // Read as Apollo reads them (every value, however many parameters come before), not from req.query.
  const search = new URLSearchParams(req.originalUrl.slice(req.originalUrl.indexOf('?') + 1 || req.originalUrl.length));
  for (const name of ['variables', 'extensions']) {
    if (search.getAll(name).some((value) => nestsDeeperThan(value, MAX_JSON_DEPTH))) {
      return sendJsonError(res, 400, 'BAD_REQUEST', TOO_DEEP);
    }
  }
  next();
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
      return sendRateLimited(res, err, 'graphql');
    }
    next();
  };
}
