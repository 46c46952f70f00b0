import type { RateLimitState } from '../services/rate-limit.js';
import type { Services } from '../services/services.js';
import type { Viewer } from '../services/viewer.js';
import { createAccess, type Access } from '../services/access.js';
import type { RequestInfo } from '../http/locals.js';
import type { EpochRead } from '../stores/rows-at-epoch.js';
import { createLoaders, type Loaders } from './loaders.js';
import type { LiveStream } from './stream/live-stream.js';

/** What every resolver sees: who is asking, and this request's loaders. */
export interface GraphQLContext {
  viewer: Viewer;
  services: Services;
  loaders: Loaders;
  /** What this viewer may read: every resolver asks here. */
  access: Access;
  requestId: string;
  /** Shared with the request log: what the operation turned out to be. */
  info: RequestInfo;
  /** Cost before execution, and connection nodes actually returned. */
  cost: { requested: number; nodes: number };
  /** The owner's budget after this request's cost was spent. */
  rateLimit?: RateLimitState;
  /** A subscription's stream at /graphql/stream: where it starts, and how it is sent. */
  stream?: LiveStream;
  /** The epochs the request read before it began: what rows kept by earlier requests may be reused by. */
  epochRead?: EpochRead;
}

/** A viewer's loaders (fresh unless given: nothing read before is reused) and its access through them. */
export function viewerReads(
  viewer: Viewer,
  services: Services,
  loaders: Loaders = createLoaders(services),
): Pick<GraphQLContext, 'viewer' | 'loaders' | 'access'> {
  const access = createAccess(viewer, {
    eventById: (eventId) => loaders.eventById.load(eventId),
    organizerIds: (eventId) => loaders.organizerIds.load(eventId),
    registeredEventIds: (userId) => loaders.registeredEventIds.load(userId),
  });
  return { viewer, loaders, access };
}

/** `epochRead`: the epochs the request read before it began (an API request's bearer check reads them), if any. */
export function buildContext(
  viewer: Viewer,
  services: Services,
  requestId: string,
  info: RequestInfo,
  epochRead?: EpochRead,
): GraphQLContext {
  const loaders = createLoaders(services, info.reads, epochRead && { at: epochRead, viewer });
  const reads = viewerReads(viewer, services, loaders);
  return { ...reads, services, requestId, info, cost: { requested: 0, nodes: 0 }, epochRead };
}
