import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { bearerToken } from '../../http/bearer-auth.js';
import { requestInfo } from '../../http/locals.js';
import type { ViewerLookup } from '../../services/bearer.js';
import type { Services } from '../../services/services.js';
import { buildContext, type GraphQLContext } from '../context.js';
import { lastEventIdOf, sendShuttingDown } from './guards.js';
import { TOKEN_EXPIRED, type LiveStream } from './live-stream.js';
import type { PreparedSubscription } from './prepare.js';
import type { SharedLoaders } from './shared-loaders.js';

/** Results handed to graphql-sse but not yet written: past HIGH the stream waits for its client, until LOW. */
export const QUEUE = { high: 64, low: 16 };
/** setTimeout's ceiling: a token that lives longer is checked again on the next auth epoch move anyway. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** graphql-sse's handler, as the router made it: the response's body (the stream's messages) and head. */
export type StreamHandler = (
  req: Request,
  res: Response,
  context: GraphQLContext,
) => Promise<
  readonly [
    AsyncGenerator<string> | string | null,
    { status: number; statusText: string; headers?: Record<string, string> },
  ]
>;

export interface ServeDeps {
  handler: StreamHandler;
  shared: SharedLoaders;
  services: Services;
  viewers: ViewerLookup;
  logger: Logger;
  stallMs: number;
  closing(): boolean;
  onEvent?(): void;
}

/** One request's stream, from the moment its slot was taken: ended by the client, the server or shutdown. */
export interface StreamRequest {
  /** Aborted when the response closes, however. */
  closed: AbortSignal;
}

/**
 * Runs a prepared subscription on the response: the viewer is resolved again first (a token revoked while the
 * body was read gets its 401 now), then graphql-sse produces the messages and this writes them, each `next`
 * with its change's cursor as the SSE `id`, waiting for a client that reads slowly and ending one that stalls.
 */
export async function serveStream(
  req: Request,
  res: Response,
  request: StreamRequest,
  prepared: PreparedSubscription,
  deps: ServeDeps,
): Promise<void> {
  const token = bearerToken(req.headers.authorization);
  const { viewer, epochs, expiresAt } = await deps.viewers(token);
  // Gone meanwhile, or answered by shutdown.
  if (request.closed.aborted || res.headersSent) return;
  const controller = new AbortController();
  request.closed.addEventListener('abort', () => controller.abort('closed'), { once: true });
  const cursors: (string | null)[] = [];
  let drained: (() => void) | undefined;
  let stall: NodeJS.Timeout | undefined;
  let expiry: NodeJS.Timeout | undefined;
  let expiresAtNow = NaN;
  const expireAt = (at: number) => {
    if (at === expiresAtNow) return;
    expiresAtNow = at;
    clearTimeout(expiry);
    if (!Number.isFinite(at)) return;
    const ms = Math.min(MAX_TIMER_MS, Math.max(0, at - Date.now()));
    expiry = setTimeout(() => controller.abort(TOKEN_EXPIRED), ms).unref();
  };
  expireAt(expiresAt);
  controller.signal.addEventListener(
    'abort',
    () => {
      clearTimeout(stall);
      clearTimeout(expiry);
      drained?.();
    },
    { once: true },
  );
  const stream: LiveStream = {
    lastEventId: lastEventIdOf(req),
    sinceEpoch: epochs.auth,
    signal: controller.signal,
    nodesPerChange: prepared.nodesPerChange,
    sending: (cursor) => cursors.push(cursor),
    writable() {
      if (cursors.length < QUEUE.high || controller.signal.aborted) return Promise.resolve(false);
      return new Promise<boolean>((resolve) => {
        drained = () => resolve(true);
        // A client that takes nothing in for this long is gone or hostile: its stream ends.
        stall = setTimeout(() => {
          deps.logger.warn({ requestId: res.locals.requestId, stallMs: deps.stallMs }, 'stream client stalled; ended');
          res.destroy();
        }, deps.stallMs);
      });
    },
    async reauthorize() {
      const resolved = await deps.viewers(token);
      expireAt(resolved.expiresAt);
      return { viewer: resolved.viewer, authEpoch: resolved.epochs.auth };
    },
    loadersAt: (position) => deps.shared.at(position),
  };
  const context = buildContext(viewer, deps.services, res.locals.requestId, requestInfo(res));
  context.stream = stream;
  const [body, init] = await deps.handler(req, res, context);
  if (request.closed.aborted || res.headersSent || deps.closing()) {
    controller.abort('closed');
    if (typeof body === 'object' && body !== null) void body.return(undefined);
    if (!res.headersSent && !request.closed.aborted) sendShuttingDown(res);
    return;
  }
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
  request.closed.addEventListener('abort', () => void body.return(undefined), { once: true });
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

/** Writes one message; false once the response cannot take more (ended, or its client gone). */
function write(res: Response, text: string): Promise<boolean> {
  if (res.writableEnded || res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => res.write(text, (err) => resolve(!err)));
}
