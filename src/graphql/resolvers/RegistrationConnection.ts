import type {
  PageInfoResolvers,
  RegistrationConnectionResolvers,
  RegistrationEdgeResolvers,
} from '../../generated/graphql.js';
import { registrationModel, type RegistrationConnectionModel } from '../models.js';
import { encodeCursor } from '../pagination.js';

// The registrants were read with the page, in the same statement; the email's access decided per connection.
const models = (c: RegistrationConnectionModel) => c.page.rows.map((row) => registrationModel(row, c.showEmail));

export const RegistrationConnection: RegistrationConnectionResolvers = {
  nodes: models,
  edges: models,
  pageInfo(c) {
    const { rows, hasNextPage, hasPreviousPage } = c.page;
    return {
      hasNextPage,
      hasPreviousPage,
      startCursor: rows.length ? encodeCursor(rows[0]!.id) : null,
      endCursor: rows.length ? encodeCursor(rows[rows.length - 1]!.id) : null,
    };
  },
  totalCount: (c, _args, { loaders }) => loaders.registrationCount.load(c.eventId),
};

export const RegistrationEdge: RegistrationEdgeResolvers = {
  cursor: (edge) => encodeCursor(edge.row.id),
  node: (edge) => edge,
};

export const PageInfo: PageInfoResolvers = {};
