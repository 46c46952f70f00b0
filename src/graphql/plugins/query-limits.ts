import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, Kind, type ASTVisitor, type FragmentDefinitionNode, type ValidationContext } from 'graphql';
import { RateLimited, type RateLimiter } from '../../services/rate-limit.js';
import { rateLimitHeaders, retryAfter } from '../../http/rate-limit-headers.js';
import type { GraphQLContext } from '../context.js';
import { costOf, LIMITS, overLimit } from '../limits.js';
import { documentOverLimit, measure } from '../query-shape.js';
import { conditionalSubscriptionRoot } from '../subscription-root.js';

const tooComplex = (reason: string, extensions: Record<string, unknown> = {}) =>
  new GraphQLError(reason, { extensions: { code: 'QUERY_TOO_COMPLEX', ...extensions, http: { status: 400 } } });

/**
 * Refuses a subscription whose root field is conditional (see subscription-root.ts), and a document over a
 * shape limit (depth, aliases, fields, directives, repeats, merges), before the other validation rules walk
 * it: some of them are quadratic in repeated fields, one throws on such a subscription. graphql-js runs all rules
 * in one pass; this one acts on entering the root, and returning null there (the visitor's "delete
 * this node") ends the pass for every rule. Apollo hands a plugin the document only after validation.
 */
export function queryLimitsRule(context: ValidationContext): ASTVisitor {
  return {
    Document(document) {
      const skipped = conditionalSubscriptionRoot(document);
      if (skipped) {
        const message = 'A subscription may not put @skip or @include on its root field.';
        context.reportError(
          new GraphQLError(message, { nodes: skipped, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }),
        );
        return null;
      }
      const reason = documentOverLimit(context.getSchema(), document);
      if (!reason) return undefined;
      context.reportError(tooComplex(reason));
      return null;
    },
  };
}

/**
 * Prices each operation after validation (page sizes come from its variables) and before execution;
 * one over the cost limit is rejected whole. Then spends its cost from the owner's hourly budget (429
 * when spent). A request with `"extensions": {"cost": true}` gets `extensions.cost` in its response.
 * One plugin, because the order matters: limits, then cost, then the budget.
 */
export function queryLimitsPlugin(limiter: RateLimiter): ApolloServerPlugin<GraphQLContext> {
  // Once spent, the refusal keeps its own answer; the owner's next request is the 429 (refuseSpentBudget).
  const spendOne = (context: GraphQLContext) =>
    limiter.consume(context.viewer, 1).catch((err: unknown) => {
      if (err instanceof RateLimited) return err.state;
      throw err;
    });
  return {
    async requestDidStart() {
      // A document refused by the parser, validation or a limit still cost work: it spends one point.
      let refused = false;
      return {
        async parsingDidStart() {
          return async (err) => {
            if (err) refused = true;
          };
        },
        async validationDidStart() {
          return async (errors) => {
            if (errors?.length) refused = true;
          };
        },
        async didResolveOperation({ operation, document, request, schema, contextValue }) {
          // An operation type the schema lacks is the read-only plugin's to reject, at no cost.
          if (!operation || !schema.getRootType(operation.operation)) return;
          const fragments: Record<string, FragmentDefinitionNode> = {};
          for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
          const shape = measure(schema, operation, fragments, request.variables ?? {});
          contextValue.cost.requested = costOf(shape.nodes);
          contextValue.info.cost = contextValue.cost.requested;
          const reason = overLimit(shape);
          if (reason) {
            refused = true;
            throw tooComplex(reason, { cost: { requested: contextValue.cost.requested, maximum: LIMITS.maxCost } });
          }
          try {
            contextValue.rateLimit = await limiter.consume(contextValue.viewer, contextValue.cost.requested);
          } catch (err) {
            if (!(err instanceof RateLimited)) throw err;
            contextValue.rateLimit = err.state;
            throw new GraphQLError(err.message, {
              extensions: {
                code: 'RATE_LIMITED',
                http: { status: 429, headers: new Map([['retry-after', retryAfter(err)]]) },
              },
            });
          }
        },
        async willSendResponse({ request, response, contextValue }) {
          // Every response says where the budget stands, even one that failed before spending any.
          const budget =
            contextValue.rateLimit ?? (await (refused ? spendOne(contextValue) : limiter.peek(contextValue.viewer)));
          for (const [name, value] of Object.entries(rateLimitHeaders(budget))) response.http.headers.set(name, value);
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
