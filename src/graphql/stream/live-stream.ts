import type { Viewer } from '../../services/viewer.js';
import type { Loaders } from '../loaders.js';

/** The abort reason of a stream whose token expired (any other reason: the response ended). */
export const TOKEN_EXPIRED = 'token expired';

/** What a subscription at /graphql/stream knows of its stream (built by the stream router). */
export interface LiveStream {
  /** The position of the request's `Last-Event-ID`, or null: from the changes committed from now on. */
  lastEventId: number | null;
  /** The auth epoch the viewer was resolved under: a move since then means resolving the token again. */
  sinceEpoch: string;
  /** Aborted when the response ends (client gone, shutdown, stalled) or the token expires (TOKEN_EXPIRED). */
  signal: AbortSignal;
  /** What one delivered change costs, in nodes: the subscription's selection, measured before it opened. */
  nodesPerChange: number;
  /** Told before each result is handed on: the cursor of its change (the SSE `id`), or null for none. */
  sending(cursor: string | null): void;
  /**
   * Resolves once the client has taken in enough of what was sent (true when that meant waiting for it); the
   * router ends a stream whose client never does.
   */
  writable(): Promise<boolean>;
  /**
   * The token resolved again (the viewer lookup's cache serves it while the auth epoch stands): the viewer and
   * the auth epoch now, or InvalidToken.
   */
  reauthorize(): Promise<{ viewer: Viewer; authEpoch: string }>;
  /** The loaders every stream of the instance shares for the batch that ends at this log position. */
  loadersAt(position: number): Loaders;
}
