import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, OperationTypeNode } from 'graphql';
import type { GraphQLContext } from '../context.js';

/**
 * graphql 16 only fails an operation type the schema lacks at execution; reject it as invalid (400)
 * instead. Checked after Apollo's own GET check, so a mutation sent by GET still gets its 405. A subscription
 * is a stream: /graphql answers once, so it points to /graphql/stream.
 */
export function readOnlyPlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, schema }) {
          if (operation?.operation === OperationTypeNode.SUBSCRIPTION) {
            throw new GraphQLError('Subscriptions are served at /graphql/stream, over Server-Sent Events.', {
              nodes: operation,
              extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
            });
          }
          if (!operation || schema.getRootType(operation.operation)) return;
          throw new GraphQLError(`This API is read-only: the schema has no ${operation.operation} type.`, {
            nodes: operation,
            extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } },
          });
        },
      };
    },
  };
}
