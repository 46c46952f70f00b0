import type { EventConnectionResolvers, EventEdgeResolvers } from '../../generated/graphql.js';
import { encodeCursor } from '../pagination.js';

export const EventConnection: EventConnectionResolvers = {
  nodes: (c) => c.rows,
  edges: (c) => c.rows,
  pageInfo: ({ rows, hasNextPage, hasPreviousPage }) => ({
    hasNextPage,
    hasPreviousPage,
    startCursor: rows.length ? encodeCursor(rows[0]!.id, 'evt') : null,
    endCursor: rows.length ? encodeCursor(rows[rows.length - 1]!.id, 'evt') : null,
  }),
};

export const EventEdge: EventEdgeResolvers = {
  cursor: (event) => encodeCursor(event.id, 'evt'),
  node: (event) => event,
};
