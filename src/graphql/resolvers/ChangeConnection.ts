import type { ChangeConnectionResolvers, ChangePageInfoResolvers } from '../../generated/graphql.js';
import { encodeChangeCursor } from '../pagination.js';

export const ChangeConnection: ChangeConnectionResolvers = {
  nodes: (page) => page.changes,
  edges: (page) => page.changes,
  pageInfo: (page) => page,
};

export const ChangePageInfo: ChangePageInfoResolvers = {
  endCursor: (page) => encodeChangeCursor(page.endPosition),
  hasNextPage: (page) => page.hasNextPage,
};
