import type { NextFunction, Request, Response } from 'express';

/** True when an If-None-Match header lists this ETag (weak comparison, RFC 9110 §13.1.2). */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string | undefined): boolean {
  if (!ifNoneMatch || !etag) return false;
  if (ifNoneMatch.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => opaque(tag) === opaque(etag));
}

/**
 * Express answers a matching If-None-Match with 304 for GET only. GraphQL queries sent by POST are
 * reads too (this API has no mutations), so they get the same treatment: Express computes the ETag,
 * and this makes its freshness check apply whatever the method.
 */
export function conditionalRequests(req: Request, res: Response, next: NextFunction): void {
  Object.defineProperty(req, 'fresh', {
    configurable: true,
    get() {
      const status = res.statusCode;
      if (req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'POST') return false;
      if ((status < 200 || status >= 300) && status !== 304) return false;
      if (res.locals.info?.requestError) return false;
      return matchesEtag(req.get('if-none-match'), res.get('ETag'));
    },
  });
  next();
}
