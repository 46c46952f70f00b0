import { setImmediate as nextTurn } from 'node:timers/promises';
import { GraphQLError } from 'graphql';
import type { SubscriptionChangesArgs } from '../../generated/graphql.js';
import { ChangesExpired, UnknownChangeCursor, visibleChanges } from '../../services/change-feed.js';
import { InvalidToken } from '../../services/errors.js';
import { RateLimited } from '../../services/rate-limit.js';
import type { ChangeRow } from '../../stores/change-store.js';
import { viewerReads, type GraphQLContext } from '../context.js';
import type { Loaders } from '../loaders.js';
import { ChangesExpiredError } from '../errors.js';
import { encodeChangeCursor, notGivenOut } from '../pagination.js';
import { changeFilterOf } from '../change-filter.js';
import { TOKEN_EXPIRED, type LiveStream } from './live-stream.js';

/** The last result of a stream that ends for a reason: its `changes` field fails with this error. */
export class StreamEnd {
  constructor(readonly error: GraphQLError) {}
}

/**
 * The longest a stream sends without a turn of the event loop: a burst of changes (an import) written to a
 * client that keeps up completes in microtasks alone, and would hold up every other request until it is sent.
 */
const SLICE_MS = 20;

const streamError = (message: string, code: string) => new GraphQLError(message, { extensions: { code } });

const REVOKED = 'The token was revoked, or its user or app deactivated: the stream ends. Sign in again to resume.';
const EXPIRED = 'The access token expired: the stream ends. Resume with a fresh token and `Last-Event-ID`.';

/**
 * Subscription.changes: checks the arguments and where the stream starts (errors here are the stream's only
 * result), then follows the change log. The token is resolved again before each change is sent, and loaders
 * and access are fresh for each batch, after each wait for the client and whenever the auth epoch moved.
 */
export async function liveChanges(
  args: Partial<SubscriptionChangesArgs>,
  ctx: GraphQLContext,
): Promise<AsyncGenerator<ChangeRow | StreamEnd>> {
  const { stream } = ctx;
  if (!stream)
    throw streamError('Subscriptions are served at /graphql/stream, over Server-Sent Events.', 'BAD_REQUEST');
  const filter = changeFilterOf(args);
  try {
    const after = await ctx.services.live.startAfter(stream.lastEventId);
    return follow(after, filter, ctx, stream);
  } catch (err) {
    if (err instanceof ChangesExpired) throw new ChangesExpiredError(err.message, 'Last-Event-ID');
    if (err instanceof UnknownChangeCursor) throw notGivenOut('Last-Event-ID');
    throw err;
  }
}

async function* follow(
  after: number,
  filter: ReturnType<typeof changeFilterOf>,
  ctx: GraphQLContext,
  stream: LiveStream,
): AsyncGenerator<ChangeRow | StreamEnd> {
  const { live, limiter } = ctx.services;
  let epoch = stream.sinceEpoch;
  let nodes = 0;
  let slice = performance.now();
  // The token resolved again before anything is read for it (one read of the auth epoch, then the lookup's
  // cache); loaders and access are made anew when asked to, or when the epoch moved. True when they were.
  const recheck = async (renew: boolean, loaders?: Loaders) => {
    const { viewer, authEpoch } = await stream.reauthorize();
    if (!renew && authEpoch === epoch) return false;
    epoch = authEpoch;
    Object.assign(ctx, viewerReads(viewer, ctx.services, loaders));
    return true;
  };
  try {
    for await (const batch of live.follow(after, filter, stream.signal, stream.sinceEpoch)) {
      // A window read from the log costs what a page of Query.changes costs, whatever it turns out to hold.
      if (batch.fromLog) ctx.rateLimit = await limiter.consume(ctx.viewer, 1);
      // A batch from memory is the same for every stream that is up to date: its rows are looked up once for all.
      const shared = batch.fromLog ? undefined : stream.loadersAt(batch.through);
      await recheck(true, shared);
      for (const change of await visibleChanges(ctx.access, batch.rows)) {
        // After waiting for a slow client, or once the epoch moved, the change's visibility is looked at again.
        const waited = await stream.writable();
        if (performance.now() - slice > SLICE_MS) {
          await nextTurn();
          slice = performance.now();
        }
        if (stream.signal.aborted) break;
        // After a wait, fresh loaders: what was read before it may have changed since.
        if (
          (await recheck(waited, waited ? undefined : shared)) &&
          !(await visibleChanges(ctx.access, [change])).length
        )
          continue;
        // GitHub's price: a point per 100 nodes, the selection's nodes counted for each change sent.
        nodes += stream.nodesPerChange;
        if (nodes >= 100) {
          const points = Math.floor(nodes / 100);
          nodes -= points * 100;
          ctx.rateLimit = await limiter.consume(ctx.viewer, points);
        }
        stream.sending(encodeChangeCursor(change.position));
        yield change;
      }
    }
  } catch (err) {
    const end = endOf(err);
    if (!end) throw err;
    stream.sending(null);
    yield end;
    return;
  }
  if (stream.signal.reason === TOKEN_EXPIRED) {
    stream.sending(null);
    yield new StreamEnd(streamError(EXPIRED, 'UNAUTHENTICATED'));
  }
}

/** The failures a stream reports as its last result; undefined for the unexpected ones. */
function endOf(err: unknown): StreamEnd | undefined {
  if (err instanceof InvalidToken) return new StreamEnd(streamError(REVOKED, 'UNAUTHENTICATED'));
  if (err instanceof RateLimited) return new StreamEnd(streamError(err.message, 'RATE_LIMITED'));
  if (err instanceof ChangesExpired) return new StreamEnd(new ChangesExpiredError(err.message, 'Last-Event-ID'));
  return undefined;
}
