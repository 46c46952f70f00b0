import type { NextFunction, Request, Response } from 'express';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { viewerOf } from '../http/bearer-auth.js';
import { matchesEtag } from './conditional.js';
import { requestInfo } from '../http/locals.js';
import { RateLimited, type RateLimiter } from '../services/rate-limit.js';
import { rateLimitHeaders, sendRateLimited } from '../http/rate-limit-headers.js';
import type { Viewer } from '../services/viewer.js';
import { AnswerReads } from '../lib/answer-reads.js';
import type { Touched } from '../stores/change-store.js';

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
  /** The registrations it read: a registration added or removed there drops it (see AnswerReads). */
  reads: AnswerReads;
  cost: number;
  operationName?: string;
}

/** An answer larger than this (a rare huge page) is not kept at all. */
const MAX_ENTRY_BYTES = 1024 * 1024;

/** Changes read at once to catch up with the log; past this many (an import) every answer is dropped instead. */
const MAX_CHANGES_READ = 1000;

/** What the changes after one log position through another touched; undefined past `limit`. */
export type TouchedBetween = (after: number, through: number, limit: number) => Promise<Touched[] | undefined>;

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
 * Replays an answer already computed for the same viewer, document, variables and Accept header while it is
 * current, so an answer is never stale. Triggers record every write an answer could show, from any instance
 * or the CLI, in the same transaction: a registration added or removed in the change log, anything else by
 * moving the data epoch. Before each lookup the cache reads the log up to the head the request saw and drops
 * the answers that read that event's or that user's registrations (or registrations by id; a registration
 * added past the end of a forward page with more after it leaves that page); a moved data
 * epoch drops every answer. A replay still passes every check before it (token, CORS, body limits) and spends
 * the answer's cost from the owner's budget; Apollo runs only on a miss. Only complete answers are kept: no
 * errors, and no field that changes by itself (`rateLimit`).
 */
export function responseCache(limiter: RateLimiter, megabytes: number, touchedBetween: TouchedBetween, logger: Logger) {
  const pass = (_req: Request, _res: Response, next: NextFunction) => next();
  if (megabytes === 0) return pass;

  // The answers that read each event's and each user's registrations, and those that read them by id.
  const byEvent = new Map<number, Set<string>>();
  const byUser = new Map<number, Set<string>>();
  const byAnyRegistration = new Set<string>();
  const listed = (map: Map<number, Set<string>>, id: number) => {
    let keys = map.get(id);
    if (!keys) map.set(id, (keys = new Set()));
    return keys;
  };
  const unlist = (map: Map<number, Set<string>>, id: number, key: string) => {
    const keys = map.get(id);
    if (keys?.delete(key) && keys.size === 0) map.delete(id);
  };

  const cache = new LRUCache<string, Entry>({
    maxSize: megabytes * 1024 * 1024,
    maxEntrySize: Math.min(MAX_ENTRY_BYTES, megabytes * 1024 * 1024),
    // An id read costs a slot in the answer's reads and one in the index's (with its Map entry when first).
    sizeCalculation: ({ body, reads }, key) =>
      (body.length + key.length) * 2 + (reads.events.size + reads.users.size) * 200 + 512,
    // Evicted, replaced or dropped: no change finds it any more.
    dispose: ({ reads }, key) => {
      for (const id of reads.events.keys()) unlist(byEvent, id, key);
      for (const id of reads.users) unlist(byUser, id, key);
      if (reads.anyRegistration) byAnyRegistration.delete(key);
    },
  });
  const drop = (keys: Set<string> | undefined) => {
    if (keys) for (const key of [...keys]) cache.delete(key);
  };
  /** The answers that read the event's registrations, but those a registration added (`createdId`) is past. */
  const dropEventReaders = (eventId: number, createdId: number | null) => {
    const keys = byEvent.get(eventId);
    if (!keys) return;
    for (const key of [...keys]) {
      const through = cache.peek(key)?.reads.events.get(eventId) ?? Infinity;
      if (createdId === null || createdId <= through) cache.delete(key);
    }
  };

  // Every change through this log position has dropped the answers it touched (undefined: none read yet, and
  // nothing kept). One catch-up at a time; it only moves forward.
  let caughtUp: number | undefined;
  let catchingUp: Promise<void> | undefined;
  // True from a failed read of the change log until one succeeds: each is said once, not once a request.
  let changeLogUnreadable = false;
  const advance = async (through: number): Promise<void> => {
    if (caughtUp !== undefined && through > caughtUp) {
      const touched = await touchedBetween(caughtUp, through, MAX_CHANGES_READ);
      if (changeLogUnreadable) {
        changeLogUnreadable = false;
        logger.info('replay cache: the change log is read again; answers are replayed');
      }
      if (touched === undefined) {
        cache.clear();
        byEvent.clear();
        byUser.clear();
        byAnyRegistration.clear();
      } else {
        for (const { eventId, userId, createdId } of touched) {
          dropEventReaders(eventId, createdId);
          if (userId !== null) drop(byUser.get(userId));
        }
        if (touched.length > 0) drop(byAnyRegistration);
      }
    }
    caughtUp = Math.max(caughtUp ?? through, through);
  };
  // The newest head any request has seen: a catch-up goes there, so requests waiting with rising heads take one.
  let wanted = 0;
  const catchUp = async (head: number): Promise<number> => {
    wanted = Math.max(wanted, head);
    while (caughtUp === undefined || caughtUp < head) {
      catchingUp ??= advance(wanted).finally(() => (catchingUp = undefined));
      await catchingUp;
    }
    return caughtUp;
  };

  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const epochs = res.locals.epochs;
    if (req.method !== 'POST' || epochs === undefined) return next();
    const dataEpoch = epochs.data;
    let basis: number;
    try {
      basis = await catchUp(Number(epochs.changes));
    } catch (err) {
      // The log could not be read: this request is answered afresh, and its answer is not kept.
      if (!changeLogUnreadable) {
        changeLogUnreadable = true;
        logger.warn({ err }, 'replay cache: the change log cannot be read; every answer is computed afresh');
      }
      return next();
    }
    const viewer = viewerOf(res);
    const key = keyOf(req, viewer);
    const hit = cache.get(key);
    if (hit?.dataEpoch === dataEpoch) return replay(hit);
    if (hit) cache.delete(key);
    const reads = new AnswerReads();
    const missed = requestInfo(res);
    missed.replay = 'miss';
    missed.reads = reads;

    const send = res.send.bind(res);
    res.send = (body?: unknown) => {
      const info = requestInfo(res);
      if (res.statusCode === 200 && info.cacheable && typeof body === 'string') {
        // The ETag Express would compute, set now so a replay need not hash the body again.
        const etag = (req.app.get('etag fn') as (body: string, encoding: string) => string)(body, 'utf8');
        res.set('ETag', etag);
        const contentType = String(res.get('Content-Type'));
        // Read after every change through `basis`: kept only if no later change was applied without it.
        if (caughtUp === basis) {
          const entry: Entry = {
            body,
            bytes: Buffer.byteLength(body),
            contentType,
            etag,
            dataEpoch,
            reads,
            cost: info.cost ?? 1,
          };
          if (info.operationName !== undefined) entry.operationName = info.operationName;
          cache.set(key, entry);
          if (cache.peek(key) === entry) {
            for (const id of reads.events.keys()) listed(byEvent, id).add(key);
            for (const id of reads.users) listed(byUser, id).add(key);
            if (reads.anyRegistration) byAnyRegistration.add(key);
          }
        }
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
