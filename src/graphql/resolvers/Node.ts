import type { NodeResolvers } from '../../generated/graphql.js';
import { nodeType } from '../node-lookup.js';

export const Node: NodeResolvers = {
  __resolveType: (model) => nodeType(model),
};
