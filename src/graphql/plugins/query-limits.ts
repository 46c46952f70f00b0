import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, Kind, type FragmentDefinitionNode } from 'graphql';
import type { GraphQLContext } from '../context.js';
import { costOf, LIMITS, measure, overLimit } from '../limits.js';

/**
 * Measures each operation after validation and before execution; one over any limit is rejected
 * whole. A request with `"extensions": {"cost": true}` gets `extensions.cost` in its response.
 */
export function queryLimitsPlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, document, request, schema, contextValue }) {
          if (!operation) return;
          const fragments: Record<string, FragmentDefinitionNode> = {};
          for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
          const shape = measure(schema, operation, fragments, request.variables ?? {});
          contextValue.cost.requested = costOf(shape.nodes);
          contextValue.info.cost = contextValue.cost.requested;
          const reason = overLimit(shape);
          if (reason) {
            throw new GraphQLError(reason, {
              extensions: {
                code: 'QUERY_TOO_COMPLEX',
                cost: { requested: contextValue.cost.requested, maximum: LIMITS.maxCost },
                http: { status: 400 },
              },
            });
          }
        },
        async willSendResponse({ request, response, contextValue }) {
          if (request.extensions?.cost !== true || response.body.kind !== 'single' || !contextValue?.cost) return;
          const { singleResult } = response.body;
          singleResult.extensions = {
            ...singleResult.extensions,
            cost: {
              requested: contextValue.cost.requested,
              actual: costOf(contextValue.cost.nodes),
              maximum: LIMITS.maxCost,
            },
          };
        },
      };
    },
  };
}
