import type { ApolloServerPlugin } from '@apollo/server';
import type { GraphQLContext } from '../context.js';

/** SPEC §3: every GraphQL response is private and revalidated (Apollo's `no-store` must not show). */
export const CACHE_CONTROL = 'max-age=0, private, must-revalidate';

export function responseHeadersPlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response }) {
          response.http.headers.set('cache-control', CACHE_CONTROL);
        },
      };
    },
  };
}
