import type { NextFunction, Request, Response } from 'express';
import type { AuthorizeThrottle } from '../services/authorize-throttle.js';
import { sendErrorPage } from '../http/pages/error-page.js';

/**
 * The provider's routes that store a row for an anonymous request: the authorization endpoint (an
 * interaction) and the end-session endpoint (a session). /auth/:uid resumes a sign-in and is not guarded.
 */
export const GUARDED_PATHS = ['/auth', '/session/end'];
/** Longest value of one authorization parameter: far above a random state or nonce, far below a flood. */
export const MAX_AUTHORIZE_PARAMETER = 2048;
/** Largest authorization request (its query string, or its form body), in bytes. */
export const MAX_AUTHORIZE_REQUEST = 8 * 1024;

/** The first query parameter longer than the cap, if any: read as the provider reads them, every one of them. */
function overlongParameter(req: Request): string | undefined {
  const at = req.originalUrl.indexOf('?');
  if (at === -1) return undefined;
  for (const [name, value] of new URLSearchParams(req.originalUrl.slice(at + 1))) {
    if (value.length > MAX_AUTHORIZE_PARAMETER) return name;
  }
  return undefined;
}

/**
 * In front of the provider's routes in GUARDED_PATHS, which store a row for every request that reaches
 * them, cookies or not: oversized requests are refused unread and each client address is throttled
 * before anything is stored.
 */
export function authorizeGuard(throttle: AuthorizeThrottle) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const query = req.originalUrl.length - req.path.length;
    const declared = Number(req.headers['content-length'] ?? 0);
    if (req.headers['transfer-encoding'] !== undefined) {
      const description = 'An authorization request sent as a form must declare its Content-Length.';
      return sendErrorPage(res, 411, { error: 'invalid_request', description, requestId: res.locals.requestId });
    }
    if (query > MAX_AUTHORIZE_REQUEST || declared > MAX_AUTHORIZE_REQUEST) {
      const description = `An authorization request may carry at most ${MAX_AUTHORIZE_REQUEST} bytes of parameters.`;
      return sendErrorPage(res, 413, { error: 'invalid_request', description, requestId: res.locals.requestId });
    }
    const overlong = overlongParameter(req);
    if (overlong !== undefined) {
      const description = `${overlong.slice(0, 40)} is longer than ${MAX_AUTHORIZE_PARAMETER} characters.`;
      return sendErrorPage(res, 400, { error: 'invalid_request', description, requestId: res.locals.requestId });
    }
    try {
      const wait = await throttle.take(req.ip ?? '');
      if (wait !== undefined) {
        res.set('Retry-After', String(wait));
        const description = `Too many sign-in or sign-out requests from your network: try again in ${wait} seconds.`;
        return sendErrorPage(res, 429, { error: 'rate_limited', description, requestId: res.locals.requestId });
      }
    } catch (err) {
      return next(err);
    }
    next();
  };
}
