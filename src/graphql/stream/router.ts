import express, { Router, type Request, type Response } from 'express';
import type { GraphQLSchema } from 'graphql';
import { createHandler } from 'graphql-sse';
import type { Logger } from 'pino';
import { bearerToken, requireApiScope, requireViewer, viewerOf } from '../../http/bearer-auth.js';
import { sendJsonError } from '../../http/json-error.js';
import { requestInfo } from '../../http/locals.js';
import type { ViewerLookup } from '../../services/bearer.js';
import { ownerKey, type RateLimiter } from '../../services/rate-limit.js';
import type { Services } from '../../services/services.js';
import { buildContext, type GraphQLContext } from '../context.js';
import { decodeChangeCursor } from '../pagination.js';
import {
  refuseBatches,
  refuseDeepParameters,
  refuseSpentBudget,
  requireJsonBody,
  verifyBody,
} from '../request-guards.js';
import { TOKEN_EXPIRED, type LiveStream } from './live-stream.js';
import { prepareSubscription, preparedOf } from './prepare.js';
import { StreamSlots, type SlotRefusal } from './slots.js';

const MAX_BODY_BYTES = 100 * 1024;
/** Results handed to graphql-sse but not yet written: past HIGH the stream waits for its client, until LOW. */
const QUEUE = { high: 64, low: 16 };
/** setTimeout's ceiling: a token that lives longer is checked again on the next auth epoch move anyway. */
const MAX_TIMER_MS = 2 ** 31 - 1;

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
  /** Streams open at this instance now. */
  readonly open: number;
  /** Shutting down: new streams get 503, open ones end now (without `complete`: their clients reconnect elsewhere). */
  closeAll(): void;
}

interface StreamRequestContext {
  res: Response;
  context: GraphQLContext;
}

/** `Last-Event-ID`, when sent: a change cursor's position (400 when it is not one this API gave out). */
function lastEventIdOf(req: Request): number | null {
  const header = req.get('last-event-id');
  if (header === undefined || header === '') return null;
  return decodeChangeCursor(header, 'Last-Event-ID');
}

/** GraphQL over Server-Sent Events at /graphql/stream (graphql-sse, distinct connections mode). */
export function createStreamRouter(deps: StreamRouterDeps): StreamRouter {
  const slots = new StreamSlots(deps.streamsMax, deps.streamsPerOwner);
  const open = new Map<Response, () => void>();
  let closing = false;

  const handler = createHandler<Request, StreamRequestContext, Record<PropertyKey, unknown>>({
    schema: deps.schema,
    // Only distinct connections: every stream is one request, authenticated by its bearer token.
    authenticate: () => null,
    // prepareSubscription validated the document already, and refused it with a 400 before the stream opened.
    validate: () => [],
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

  /** The response's stream: its state for the subscription, and its end however it comes. */
  async function serve(req: Request, res: Response): Promise<void> {
    const prepared = preparedOf.get(res)!;
    const token = bearerToken(req.headers.authorization);
    const controller = new AbortController();
    const cursors: (string | null)[] = [];
    let drained: (() => void) | undefined;
    let stall: NodeJS.Timeout | undefined;
    let expiry: NodeJS.Timeout | undefined;
    const expireAt = (at: number) => {
      clearTimeout(expiry);
      if (Number.isFinite(at)) {
        expiry = setTimeout(
          () => controller.abort(TOKEN_EXPIRED),
          Math.min(MAX_TIMER_MS, Math.max(0, at - Date.now())),
        );
      }
    };
    expireAt(res.locals.tokenExpiresAt ?? Infinity);
    const stream: LiveStream = {
      lastEventId: lastEventIdOf(req),
      signal: controller.signal,
      nodesPerChange: prepared.nodesPerChange,
      sending: (cursor) => cursors.push(cursor),
      writable() {
        if (cursors.length < QUEUE.high || controller.signal.aborted) return Promise.resolve();
        return new Promise<void>((resolve) => {
          drained = resolve;
          // A client that takes nothing in for this long is gone or hostile: its stream ends.
          stall = setTimeout(() => {
            deps.logger.warn(
              { requestId: res.locals.requestId, stallMs: deps.stallMs },
              'stream client stalled; ended',
            );
            res.destroy();
          }, deps.stallMs);
        });
      },
      async reauthorize() {
        const { viewer, expiresAt } = await deps.viewers(token);
        expireAt(expiresAt);
        return viewer;
      },
    };
    const end = () => {
      clearTimeout(stall);
      clearTimeout(expiry);
      controller.abort('closed');
      drained?.();
      open.delete(res);
    };
    res.once('close', end);
    open.set(res, () => {
      // A comment the client's parser skips, then the end: no `complete`, so its client reconnects.
      if (!res.writableEnded) res.end(': this instance is shutting down; reconnect with Last-Event-ID\n\n');
    });

    const context = buildContext(viewerOf(res), deps.services, res.locals.requestId, requestInfo(res));
    context.stream = stream;
    const [body, init] = await handler({
      method: req.method,
      url: req.originalUrl,
      headers: {
        // Checked by the router already: graphql-sse wants exactly this to serve a distinct stream.
        get: (key: string) => (key === 'accept' ? 'text/event-stream' : (req.get(key) ?? undefined)),
      },
      body: () => Promise.resolve(req.method === 'POST' ? (req.body as Record<string, unknown>) : ''),
      raw: req,
      context: { res, context },
    });
    // Proxies (nginx) would hold the events back to fill a buffer; graphql-sse's no-cache would replace no-store.
    res.writeHead(init.status, init.statusText, {
      ...init.headers,
      'cache-control': 'no-store',
      'X-Accel-Buffering': 'no',
    });
    if (!body || typeof body === 'string') {
      res.end(body ?? undefined);
      return;
    }
    res.once('close', () => void body.return(undefined));
    for await (const message of body) {
      let text = message;
      if (message.startsWith('event: next')) {
        const cursor = cursors.shift();
        if (cursor) text = `id: ${cursor}\n${message}`;
        if (cursors.length <= QUEUE.low && drained) {
          clearTimeout(stall);
          drained();
          drained = undefined;
        }
        deps.onEvent?.();
      }
      if (!(await write(res, text))) break;
    }
    if (!res.writableEnded) res.end();
  }

  const router = Router();
  router.use(
    requireViewer(deps.viewers, 'graphql'),
    requireApiScope,
    refuseSpentBudget(deps.limiter),
    (req, res, next) => {
      res.set('Cache-Control', 'no-store');
      if (req.method !== 'GET' && req.method !== 'POST') {
        res.set('Allow', 'GET, POST');
        return sendJsonError(res, 405, 'METHOD_NOT_ALLOWED', 'Open a stream with POST (or GET).');
      }
      if (!req.accepts('text/event-stream') || !(req.get('accept') ?? '').includes('text/event-stream')) {
        return sendJsonError(
          res,
          406,
          'NOT_ACCEPTABLE',
          'Send `Accept: text/event-stream`: this endpoint answers with a stream of events.',
        );
      }
      if (closing) {
        res.set('Retry-After', '1');
        return sendJsonError(
          res,
          503,
          'SHUTTING_DOWN',
          'This instance is shutting down: open the stream again (with Last-Event-ID).',
        );
      }
      try {
        lastEventIdOf(req);
      } catch {
        return sendJsonError(res, 400, 'BAD_USER_INPUT', '`Last-Event-ID` is not a change cursor this API gave out.');
      }
      next();
    },
    requireJsonBody,
    express.json({ limit: MAX_BODY_BYTES, verify: verifyBody }),
    refuseBatches,
    refuseDeepParameters,
    (_req, res, next) => {
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
      res.once('close', release);
      next();
    },
    prepareSubscription(deps.schema, deps.limiter, deps.production),
    (req, res, next) => {
      serve(req, res).catch((err: unknown) => {
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
      for (const close of open.values()) close();
    },
  };
}

/** Writes one message; false once the response cannot take more (ended, or its client gone). */
function write(res: Response, text: string): Promise<boolean> {
  if (res.writableEnded || res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => res.write(text, (err) => resolve(!err)));
}
