import type { ApolloServerPlugin } from '@apollo/server';
import type { GraphQLFormattedError } from 'graphql';
import type { Logger } from 'pino';
import type { GraphQLContext } from '../context.js';

/** Internal errors leave the server as a message and a request id only; the detail goes to the log. */
export function errorMaskingPlugin(logger: Logger): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didEncounterErrors({ errors, contextValue }) {
          for (const error of errors) {
            if (!error.extensions?.code || error.extensions.code === 'INTERNAL_SERVER_ERROR') {
              logger.error({ err: error.originalError ?? error, requestId: contextValue.requestId }, 'resolver failed');
            }
          }
        },
        async willSendResponse({ response, contextValue }) {
          if (response.body.kind !== 'single' || !response.body.singleResult.errors) return;
          response.body.singleResult.errors = response.body.singleResult.errors.map((e) =>
            e.extensions?.code === 'INTERNAL_SERVER_ERROR' ? masked(e, contextValue?.requestId) : e,
          );
        },
      };
    },
  };
}

function masked(error: GraphQLFormattedError, requestId: string | undefined): GraphQLFormattedError {
  return {
    message: 'Internal server error',
    ...(error.path ? { path: error.path } : {}),
    extensions: { code: 'INTERNAL_SERVER_ERROR', ...(requestId ? { requestId } : {}) },
  };
}
