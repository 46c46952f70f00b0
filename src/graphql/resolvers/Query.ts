import { canSeeEvent } from '../../services/policy.js';
import type { QueryResolvers } from '../../generated/graphql.js';

export const Query: QueryResolvers = {
  async event(_parent, { slug }, { loaders, viewer }) {
    const event = await loaders.eventBySlug.load(slug);
    if (!event) return null;
    const organizerIds = await loaders.organizerIds.load(event.id);
    // Not visible and not existing look the same to the caller.
    return canSeeEvent(viewer, event, organizerIds) ? event : null;
  },
  viewer: (_parent, _args, { viewer }) => viewer,
  // Set before execution by the query-limits plugin, which spent this request's cost.
  rateLimit: (_parent, _args, { rateLimit }) => rateLimit!,
};
