import type { ApolloServerPlugin } from '@apollo/server';
import Negotiator from 'negotiator';
import type { GraphQLContext } from '../context.js';

// Request errors the GraphQL over HTTP spec answers with 200 when the client accepts only application/json.
const REQUEST_ERRORS = new Set(['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_USER_INPUT']);

/** The media type Apollo will answer in, chosen the same way (application/json first). */
function answersInLegacyJson(accept: string | undefined): boolean {
  if (!accept) return true;
  const preferred = new Negotiator({ headers: { accept } }).mediaType([
    'application/json',
    'application/graphql-response+json',
  ]);
  return preferred === 'application/json';
}

/**
 * GraphQL over HTTP: with `application/json` a parse, validation or variable error is a 200 (the body
 * carries the errors); with `application/graphql-response+json` it stays a 400.
 */
export function mediaTypeStatusPlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart({ request }) {
      return {
        async willSendResponse({ response }) {
          if (response.http.status !== 400 || response.body.kind !== 'single') return;
          const { errors, data } = response.body.singleResult;
          const requestError =
            data === undefined &&
            !!errors?.length &&
            errors.every((e) => REQUEST_ERRORS.has(String(e.extensions?.code)));
          if (!requestError || !answersInLegacyJson(request.http?.headers.get('accept'))) return;
          response.http.status = 200;
        },
      };
    },
  };
}
