import type { NextFunction, Request, Response } from 'express';
import {
  getOperationAST,
  getVariableValues,
  GraphQLError,
  Kind,
  OperationTypeNode,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
} from 'graphql';
import { LRUCache } from 'lru-cache';
import { sendJsonError, sendJsonErrors } from '../../http/json-error.js';
import { rateLimitHeaders, sendRateLimited } from '../../http/rate-limit-headers.js';
import { viewerOf } from '../../http/bearer-auth.js';
import { RateLimited, type RateLimiter } from '../../services/rate-limit.js';
import { costOf, LIMITS, overLimit } from '../limits.js';
import { queryLimitsRule } from '../plugins/query-limits.js';
import { measure } from '../query-shape.js';

/** A subscription checked and paid for: what the stream executes for each change. */
export interface PreparedSubscription {
  document: DocumentNode;
  operationName: string | undefined;
  variables: Record<string, unknown>;
  /** Nodes the selection returns for one change: what each change sent costs. */
  nodesPerChange: number;
}

const RULES = [...specifiedRules, queryLimitsRule];

/** Streams that send the same subscription text share one parsed document instead of a syntax tree each. */
const DOCUMENT_CACHE_CHARS = 2 ** 20;

/** Each stream request's subscription, once prepared. */
export const preparedOf = new WeakMap<Response, PreparedSubscription>();

/** The operation's parameters: a POST's JSON body, or a GET's query string (variables as JSON). */
function paramsOf(req: Request): { query?: unknown; variables?: unknown; operationName?: unknown } {
  if (req.method === 'POST') return (req.body ?? {}) as Record<string, unknown>;
  const search = new URLSearchParams(req.originalUrl.slice(req.originalUrl.indexOf('?') + 1 || req.originalUrl.length));
  const variables = search.get('variables');
  try {
    return {
      query: search.get('query') ?? undefined,
      operationName: search.get('operationName') ?? undefined,
      variables: variables === null ? undefined : (JSON.parse(variables) as unknown),
    };
  } catch {
    return { variables: 'not JSON' };
  }
}

/**
 * Checks the subscription the way /graphql checks a query (parse bound, validation with the shape limits,
 * the cost limit), then spends its price from the owner's budget: every refusal is an HTTP answer before the
 * stream opens. Its price is the selection's cost as a query's; each change sent costs its nodes besides.
 */
export function prepareSubscription(schema: GraphQLSchema, limiter: RateLimiter, hideSuggestions: boolean) {
  const documents = new LRUCache<string, DocumentNode>({
    maxSize: DOCUMENT_CACHE_CHARS,
    sizeCalculation: (_document, query) => Math.max(1, query.length),
  });
  // A refused document still cost work: one point, as at /graphql.
  const spendOne = (res: Response) => limiter.consume(viewerOf(res), 1).catch(() => undefined);
  const refuse = (res: Response, status: number, code: string, errors: readonly GraphQLError[]) => {
    void spendOne(res);
    const shown = errors.map((e) => ({
      message: hideSuggestions ? e.message.replace(/ ?Did you mean(.+?)\?$/, '') : e.message,
      ...(e.locations ? { locations: e.locations } : {}),
      extensions: { code: (e.extensions.code as string | undefined) ?? code },
    }));
    sendJsonErrors(res, status, shown);
  };

  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const { query, variables, operationName } = paramsOf(req);
    if (typeof query !== 'string' || query.trim() === '') {
      return sendJsonError(res, 400, 'BAD_REQUEST', 'Send the subscription as `query`, a non-empty string.');
    }
    if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) {
      return sendJsonError(res, 400, 'BAD_REQUEST', '`variables` must be a JSON object.');
    }
    if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') {
      return sendJsonError(res, 400, 'BAD_REQUEST', '`operationName` must be a string.');
    }
    let document = documents.get(query);
    if (!document) {
      try {
        document = parse(query, { maxTokens: LIMITS.maxTokens });
      } catch (err) {
        return refuse(res, 400, 'GRAPHQL_PARSE_FAILED', [err as GraphQLError]);
      }
      const invalid = validate(schema, document, RULES, { maxErrors: 20 });
      if (invalid.length) return refuse(res, 400, 'GRAPHQL_VALIDATION_FAILED', invalid);
      documents.set(query, document);
    }
    const operation = getOperationAST(document, operationName ?? undefined);
    if (!operation) {
      const message = operationName ? `No operation named "${operationName}".` : 'Name the operation to run.';
      return refuse(res, 400, 'BAD_REQUEST', [new GraphQLError(message)]);
    }
    if (operation.operation !== OperationTypeNode.SUBSCRIPTION) {
      const message = `/graphql/stream serves subscriptions; send a ${operation.operation} to /graphql.`;
      return refuse(res, 400, 'BAD_REQUEST', [new GraphQLError(message)]);
    }
    const fragments: Record<string, FragmentDefinitionNode> = {};
    for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
    const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], (variables ?? {}) as never);
    if (coerced.errors) return refuse(res, 400, 'BAD_USER_INPUT', coerced.errors);
    const shape = measure(schema, operation, fragments, coerced.coerced);
    const reason = overLimit(shape);
    if (reason) return refuse(res, 400, 'QUERY_TOO_COMPLEX', [new GraphQLError(reason)]);
    let spent;
    try {
      spent = await limiter.consume(viewerOf(res), costOf(shape.nodes));
    } catch (err) {
      if (!(err instanceof RateLimited)) throw err;
      return res.headersSent ? undefined : sendRateLimited(res, err, 'graphql');
    }
    // Answered meanwhile (the instance began shutting down): nothing more to say.
    if (res.headersSent) return;
    res.set(rateLimitHeaders(spent));
    const prepared: PreparedSubscription = {
      document,
      operationName: operationName ?? undefined,
      // As sent: graphql-js coerces them again when it subscribes.
      variables: (variables ?? {}) as Record<string, unknown>,
      nodesPerChange: Math.max(1, shape.nodes),
    };
    preparedOf.set(res, prepared);
    next();
  };
}
