import type { NextFunction, Request, Response } from 'express';

/** True when an If-None-Match header lists this ETag (weak comparison, RFC 9110 §13.1.2). */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string | undefined): boolean {
  if (!ifNoneMatch || !etag) return false;
  if (ifNoneMatch.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => opaque(tag) === opaque(etag));
}

/** The request prototypes (one per Express app) whose `fresh` knows about them. */
const prototypes = new WeakSet<object>();

/** Whether a GraphQL answer about to be sent matches the request's If-None-Match. */
function postFresh(req: Request): boolean {
  const res = req.res!;
  const status = res.statusCode;
  if (req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'POST') return false;
  if ((status < 200 || status >= 300) && status !== 304) return false;
  if (res.locals.info?.requestError) return false;
  return matchesEtag(req.get('if-none-match'), res.get('ETag'));
}

/**
 * `fresh` redefined once on the app's request prototype: an accessor defined on each request instead would
 * turn every request object into a slow dictionary-mode one. Other requests keep Express's own check.
 */
function teachFresh(prototype: object): void {
  let holder: object | null = prototype;
  while (holder && !Object.getOwnPropertyDescriptor(holder, 'fresh'))
    holder = Object.getPrototypeOf(holder) as object | null;
  const inherited = holder ? Object.getOwnPropertyDescriptor(holder, 'fresh') : undefined;
  Object.defineProperty(prototype, 'fresh', {
    configurable: true,
    enumerable: true,
    get(this: Request) {
      if (this.res?.locals.revalidate) return postFresh(this);
      return inherited?.get ? Boolean(inherited.get.call(this)) : false;
    },
  });
  prototypes.add(prototype);
}

/**
 * Express answers a matching If-None-Match with 304 for GET only. GraphQL queries sent by POST are
 * reads too (this API has no mutations), so they get the same treatment: Express computes the ETag,
 * and this makes its freshness check apply whatever the method.
 */
export function conditionalRequests(req: Request, res: Response, next: NextFunction): void {
  const prototype = Object.getPrototypeOf(req) as object;
  if (!prototypes.has(prototype)) teachFresh(prototype);
  // A flag in res.locals, not a WeakSet of requests: no identity hash and no weak entry per request.
  res.locals.revalidate = true;
  next();
}
