import type { ApolloServerPlugin } from '@apollo/server';
import type { GraphQLContext } from '../context.js';

/** Every GraphQL response is private and revalidated (Apollo's `no-store` must not show). */
export const CACHE_CONTROL = 'max-age=0, private, must-revalidate';

export function responseHeadersPlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response, contextValue }) {
          response.http.headers.set('cache-control', CACHE_CONTROL);
          // An answer without data (a request error, an unknown persisted query) is never a 304, even as a 200.
          if (response.body.kind !== 'single') return;
          const { data, errors } = response.body.singleResult;
          if (data === undefined) contextValue.info.requestError = true;
          // A resolver may have said no already (Query.rateLimit); errors or no data always do.
          if (data === undefined || data === null || errors !== undefined) contextValue.info.cacheable = false;
          else contextValue.info.cacheable ??= true;
        },
      };
    },
  };
}
