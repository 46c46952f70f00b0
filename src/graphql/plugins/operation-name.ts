import type { ApolloServerPlugin } from '@apollo/server';
import type { GraphQLContext } from '../context.js';

/** Tells the request log and metrics which operation ran (bounded: at most 64 characters). */
export function operationNamePlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operationName, contextValue }) {
          contextValue.info.operationName = (operationName ?? 'anonymous').slice(0, 64);
        },
      };
    },
  };
}
