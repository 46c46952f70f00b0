import type { NextFunction, Request, Response } from 'express';
import { LRUCache } from 'lru-cache';
import { viewerOf } from '../http/bearer-auth.js';
import { matchesEtag } from './conditional.js';
import { requestInfo } from '../http/locals.js';
import { RateLimited, type RateLimiter } from '../services/rate-limit.js';
import { rateLimitHeaders, sendRateLimited } from '../http/rate-limit-headers.js';
import type { Viewer } from '../services/viewer.js';

/** An answer as Apollo sent it, and what replaying it needs. */
interface Entry {
  /** A string, not a Buffer: Node writes a string body with its headers in one piece. */
  body: string;
  /** Its length in bytes, for Content-Length. */
  bytes: number;
  contentType: string;
  etag: string;
  /** The data epoch read before the answer was computed: it is current only while the epoch is. */
  dataEpoch: string;
  cost: number;
  operationName?: string;
}

/** An answer larger than this (a rare huge page) is not kept at all. */
const MAX_ENTRY_BYTES = 1024 * 1024;

/** Everything an answer may depend on besides the data: who asks, with which grants, and how. */
const viewerKey = (v: Viewer): string =>
  v.kind === 'user'
    ? `user ${v.userId} ${v.uid} ${v.appId} ${v.clientId} ${v.scopes.join(' ')}\n${v.appName}` +
      (v.personalToken ? `\npat ${v.personalToken.id} ${v.personalToken.expiresAt}\n${v.personalToken.name}` : '')
    : `app ${v.appId} ${v.clientId} ${v.ownerId}\n${v.appName}`;

/** The key itself, not a hash of it: V8 hashes a string key faster than SHA-256 does, and its bytes are counted. */
const keyOf = (req: Request, viewer: Viewer): string =>
  `${viewerKey(viewer)}\n${req.headers.accept ?? ''}\n${JSON.stringify(req.body)}`;

/**
 * Replays an answer already computed for the same viewer, document, variables and Accept header while the
 * database's data epoch has not moved (triggers bump it on every write that an answer could show, from any
 * instance or the CLI), so an answer is never stale. A replay still passes every check before it (token,
 * CORS, body limits) and spends the answer's cost from the owner's budget; Apollo runs only on a miss.
 * Only complete answers are kept: no errors, and no field that changes by itself (`rateLimit`).
 */
export function responseCache(limiter: RateLimiter, megabytes: number) {
  const pass = (_req: Request, _res: Response, next: NextFunction) => next();
  if (megabytes === 0) return pass;
  const cache = new LRUCache<string, Entry>({
    maxSize: megabytes * 1024 * 1024,
    maxEntrySize: Math.min(MAX_ENTRY_BYTES, megabytes * 1024 * 1024),
    sizeCalculation: (entry, key) => (entry.body.length + key.length) * 2 + 256,
  });

  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const dataEpoch = res.locals.epochs?.data;
    if (req.method !== 'POST' || dataEpoch === undefined) return next();
    const viewer = viewerOf(res);
    const key = keyOf(req, viewer);
    const hit = cache.get(key);
    if (hit?.dataEpoch === dataEpoch) return replay(hit);
    if (hit) cache.delete(key);
    requestInfo(res).replay = 'miss';

    const send = res.send.bind(res);
    res.send = (body?: unknown) => {
      const info = requestInfo(res);
      if (res.statusCode === 200 && info.cacheable && typeof body === 'string') {
        // The ETag Express would compute, set now so a replay need not hash the body again.
        const etag = (req.app.get('etag fn') as (body: string, encoding: string) => string)(body, 'utf8');
        res.set('ETag', etag);
        const contentType = String(res.get('Content-Type'));
        const entry = { body, bytes: Buffer.byteLength(body), contentType, etag, dataEpoch, cost: info.cost ?? 1 };
        cache.set(key, info.operationName === undefined ? entry : { ...entry, operationName: info.operationName });
      }
      return send(body);
    };
    next();

    async function replay(entry: Entry): Promise<void> {
      const info = requestInfo(res);
      info.replay = 'hit';
      info.cost = entry.cost;
      if (entry.operationName !== undefined) info.operationName = entry.operationName;
      try {
        res.set(rateLimitHeaders(await limiter.consume(viewer, entry.cost)));
      } catch (err) {
        if (!(err instanceof RateLimited)) return next(err);
        return sendRateLimited(res, err, 'graphql');
      }
      // Written straight to Node's response, as Express's send would (a matching If-None-Match is a 304).
      res.setHeader('ETag', entry.etag);
      if (matchesEtag(req.headers['if-none-match'], entry.etag)) {
        res.statusCode = 304;
        res.end();
        return;
      }
      res.statusCode = 200;
      res.setHeader('Content-Type', entry.contentType);
      res.setHeader('Content-Length', entry.bytes);
      res.end(entry.body);
    }
  };
}
