import type { GatewayExecutor, GatewayInterface } from '@apollo/server-gateway-interface';
import {
  BREAK,
  execute,
  getVariableValues,
  GraphQLError,
  visit,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { GraphQLContext } from './context.js';

type Compiled = Pick<CompiledQuery, 'query'>;

/**
 * graphql-jit's errors carry no `extensions` object when the thrown error had none, which Apollo's
 * error formatting cannot take; rebuilt as graphql-js builds them, path and locations kept.
 */
function asGraphQLError(error: GraphQLError): GraphQLError {
  const rebuilt = new GraphQLError(error.message, {
    path: error.path,
    originalError: error.originalError ?? undefined,
    extensions: error.extensions ?? (error.originalError as Partial<GraphQLError> | undefined)?.extensions,
  });
  (rebuilt as { locations?: GraphQLError['locations'] }).locations = error.locations;
  return rebuilt;
}

/** True when the document asks for `__schema` or `__type` anywhere. */
function introspects(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Field(node) {
      if (node.name.value !== '__schema' && node.name.value !== '__type') return undefined;
      found = true;
      return BREAK;
    },
  });
  return found;
}

/**
 * Executes with graphql-jit: each validated document (Apollo's document cache hands back the same
 * object for the same query) is compiled once per operation name into plain JavaScript. What
 * graphql-js must word exactly (no such operation, variables that do not coerce), any document
 * graphql-jit declines to compile, and introspection run on graphql-js: graphql-jit's compile time
 * grows faster than the nesting (30 `ofType` chains 15 deep: ~100 ms), only introspection nests deep
 * here, and schema tools ask for it too rarely to gain from a compiled plan.
 */
/** Wraps one operation's execution (the tracing plugin runs it in the operation span's context). */
export type AroundExecution = <T>(contextValue: GraphQLContext, execute: () => T) => T;

export function jitExecutor(schema: GraphQLSchema, around?: AroundExecution): GatewayExecutor {
  const compiled = new WeakMap<DocumentNode, Map<string, Compiled | null>>();

  const compile = (document: DocumentNode, operationName: string | undefined): Compiled | null => {
    let byName = compiled.get(document);
    if (!byName) compiled.set(document, (byName = new Map<string, Compiled | null>()));
    let query = byName.get(operationName ?? '');
    if (query === undefined) {
      const result = introspects(document) ? undefined : compileQuery(schema, document, operationName);
      query = result && isCompiledQuery(result) ? result : null;
      byName.set(operationName ?? '', query);
    }
    return query;
  };

  const executor: GatewayExecutor = async ({ document, operation, request, context }) => {
    const { operationName } = request;
    const variableValues = request.variables ?? {};
    const query = operation ? compile(document, operationName) : null;
    // graphql-js coerces the variables: its wording for bad ones, and defaults applied (graphql-jit
    // skips the default of a non-null variable). The coerced values go to graphql-jit, which coerces
    // them again: a no-op for the built-in scalars, the schema's only input types.
    const coerced = getVariableValues(schema, operation?.variableDefinitions ?? [], variableValues);
    if (!query || coerced.errors) {
      return execute({ schema, document, operationName, variableValues, contextValue: context });
    }
    const result = (await query.query(undefined, context, coerced.coerced)) as ExecutionResult;
    return result.errors ? { ...result, errors: result.errors.map(asGraphQLError) } : result;
  };
  return around
    ? (requestContext) => around(requestContext.context as GraphQLContext, () => executor(requestContext))
    : executor;
}

/** Apollo Server's gateway interface, used only to hand it the schema and the jit executor. */
export function jitGateway(schema: GraphQLSchema, around?: AroundExecution): GatewayInterface {
  return {
    async load() {
      return { executor: jitExecutor(schema, around) };
    },
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: '' });
      return () => {};
    },
    async stop() {},
  };
}
