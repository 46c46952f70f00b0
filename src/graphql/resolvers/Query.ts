import type { QueryResolvers } from '../../generated/graphql.js';
import { lookupNode, lookupNodes } from '../node-lookup.js';
import { decodeChangeCursor, notGivenOut, pageRequest, pageSize } from '../pagination.js';
import { ChangesExpired, UnknownChangeCursor } from '../../services/change-feed.js';
import { ChangesExpiredError } from '../errors.js';
import { changeFilterOf } from '../change-filter.js';

export const Query: QueryResolvers = {
  event: async (_parent, { slug }, { loaders, access }) => access.event(await loaders.eventBySlug.load(slug)),
  async events(_parent, { first, after }, { services, viewer, cost }) {
    const { size, afterId } = pageRequest({ first, after }, 'events', 'evt');
    const page = await services.events.visiblePage(viewer, size, afterId);
    cost.nodes += page.rows.length;
    return { ...page, hasPreviousPage: afterId !== null };
  },
  node: (_parent, { id }, context) => lookupNode(id, context),
  async nodes(_parent, { ids }, context) {
    const found = await lookupNodes(ids, context);
    context.cost.nodes += found.length;
    return found;
  },
  async changes(_parent, { after, first, event, types }, { services, access, cost, info }) {
    const size = pageSize(first);
    const from = after === null || after === undefined ? null : decodeChangeCursor(after);
    const filter = changeFilterOf({ event, types });
    try {
      // The log's every change moves the page: any registration added or removed drops this answer.
      if (info.reads) info.reads.anyRegistration = true;
      const page = await services.changes.page(access, from, size, filter);
      cost.nodes += page.changes.length;
      return page;
    } catch (err) {
      if (err instanceof ChangesExpired) throw new ChangesExpiredError(err.message);
      if (err instanceof UnknownChangeCursor) throw notGivenOut('after');
      throw err;
    }
  },
  viewer: (_parent, _args, { viewer }) => viewer,
  // Set before execution by the query-limits plugin, which spent this request's cost.
  rateLimit: (_parent, _args, { rateLimit, info }) => {
    info.cacheable = false; // the budget moves with every request: this answer is never replayed
    return rateLimit!;
  },
};
