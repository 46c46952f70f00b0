import express, { Router, type Request, type Response } from 'express';
import type { ExecutionResult, GraphQLSchema } from 'graphql';
import { createHandler } from 'graphql-sse';
import type { Logger } from 'pino';
import { requireApiScope, requireViewer, viewerOf } from '../../http/bearer-auth.js';
import { sendJsonError } from '../../http/json-error.js';
import type { ViewerLookup } from '../../services/bearer.js';
import { ownerKey, type RateLimiter } from '../../services/rate-limit.js';
import type { Services } from '../../services/services.js';
import type { GraphQLContext } from '../context.js';
import {
  refuseBatches,
  refuseDeepParameters,
  refuseSpentBudget,
  requireJsonBody,
  verifyBody,
} from '../request-guards.js';
import { sendShuttingDown, streamRequestGuard } from './guards.js';
import { prepareSubscription, preparedOf } from './prepare.js';
import { maskedResult } from './results.js';
import { serveStream, type StreamHandler, type StreamRequest } from './serve.js';
import { SharedLoaders } from './shared-loaders.js';
import { StreamSlots, type SlotRefusal } from './slots.js';

const MAX_BODY_BYTES = 100 * 1024;

export interface StreamRouterDeps {
  schema: GraphQLSchema;
  services: Services;
  viewers: ViewerLookup;
  limiter: RateLimiter;
  logger: Logger;
  streamsMax: number;
  streamsPerOwner: number;
  stallMs: number;
  production: boolean;
  /** A result (a change, or the reason a stream ends) was written to a stream. */
  onEvent?(): void;
  onRefused?(reason: SlotRefusal): void;
}

export interface StreamRouter {
  router: Router;
  /** Streams open at this instance now (slots taken). */
  readonly open: number;
  /** Shutting down: new streams get 503, open ones end now (without `complete`: their clients reconnect elsewhere). */
  closeAll(): void;
}

interface StreamRequestContext {
  res: Response;
  context: GraphQLContext;
}

/** GraphQL over Server-Sent Events at /graphql/stream (graphql-sse, distinct connections mode). */
export function createStreamRouter(deps: StreamRouterDeps): StreamRouter {
  const slots = new StreamSlots(deps.streamsMax, deps.streamsPerOwner);
  // Every request holding a slot, from then until its response closes: shutdown reaches each of them.
  const requests = new Map<Response, StreamRequest>();
  let closing = false;
  const shared = new SharedLoaders(deps.services);

  const sse = createHandler<Request, StreamRequestContext, Record<PropertyKey, unknown>>({
    schema: deps.schema,
    // Only distinct connections: every stream is one request, authenticated by its bearer token.
    authenticate: () => null,
    // prepareSubscription validated the document already, and refused it with a 400 before the stream opened.
    validate: () => [],
    onNext: (_ctx, req, result) =>
      maskedResult(result as ExecutionResult, req.context.res.locals.requestId, deps.logger) as ExecutionResult,
    onSubscribe(req) {
      const prepared = preparedOf.get(req.context.res)!;
      return {
        schema: deps.schema,
        document: prepared.document,
        operationName: prepared.operationName,
        variableValues: prepared.variables,
        // graphql-sse types a context as an open record; GraphQLContext is a closed interface.
        contextValue: req.context.context as unknown as Record<PropertyKey, unknown>,
      };
    },
  });
  const handler: StreamHandler = (req, res, context) =>
    sse({
      method: req.method,
      url: req.originalUrl,
      headers: {
        // Checked by the router already: graphql-sse wants exactly this to serve a distinct stream.
        get: (key: string) => (key === 'accept' ? 'text/event-stream' : (req.get(key) ?? undefined)),
      },
      body: () => Promise.resolve(req.method === 'POST' ? (req.body as Record<string, unknown>) : ''),
      raw: req,
      context: { res, context },
    }) as ReturnType<StreamHandler>;

  /** Takes a slot for the request (429 when none is free), held until its response closes. */
  function takeSlot(_req: Request, res: Response, next: () => void): void {
    const release = slots.take(ownerKey(viewerOf(res)));
    if (typeof release !== 'function') {
      deps.onRefused?.(release);
      res.set('Retry-After', '10');
      const message =
        release === 'owner'
          ? `This token's owner has ${deps.streamsPerOwner} streams open here already: close one first.`
          : 'This instance holds as many streams as it may: try again shortly.';
      return sendJsonError(res, 429, 'TOO_MANY_STREAMS', message);
    }
    const closed = new AbortController();
    requests.set(res, { closed: closed.signal });
    res.once('close', () => {
      release();
      requests.delete(res);
      closed.abort();
    });
    next();
  }

  const router = Router();
  router.use(
    requireViewer(deps.viewers, 'graphql'),
    requireApiScope,
    refuseSpentBudget(deps.limiter),
    streamRequestGuard(() => closing),
    requireJsonBody,
    express.json({ limit: MAX_BODY_BYTES, verify: verifyBody }),
    refuseBatches,
    refuseDeepParameters,
    takeSlot,
    prepareSubscription(deps.schema, deps.limiter, deps.production),
    (req, res, next) => {
      const request = requests.get(res);
      // Gone meanwhile, or already answered by shutdown.
      if (!request || request.closed.aborted || res.headersSent) return;
      if (closing) return sendShuttingDown(res);
      const serveDeps = { ...deps, handler, shared, closing: () => closing };
      serveStream(req, res, request, preparedOf.get(res)!, serveDeps).catch((err: unknown) => {
        if (!res.headersSent) return next(err);
        deps.logger.error({ err, requestId: res.locals.requestId }, 'stream failed');
        res.destroy();
      });
    },
  );

  return {
    router,
    get open() {
      return slots.open;
    },
    closeAll() {
      closing = true;
      for (const res of requests.keys()) {
        // Not begun: the 503 of shutdown. Begun: a comment, then the end — no `complete`, so its client reconnects.
        if (!res.headersSent) sendShuttingDown(res);
        else if (!res.writableEnded) res.end(': this instance is shutting down; reconnect with Last-Event-ID\n\n');
      }
    },
  };
}
