import type { ApolloServerPlugin } from '@apollo/server';
import type { GraphQLFormattedError } from 'graphql';
import type { Logger } from 'pino';
import type { GraphQLContext } from '../context.js';

const isInternal = (error: GraphQLFormattedError) => error.extensions?.code === 'INTERNAL_SERVER_ERROR';

/** Apollo's own refusals of a request (a persisted query's hash that does not match, say) carry a 4xx but no code. */
const isCodelessRefusal = (error: unknown): boolean => {
  const extensions = (error as { extensions?: { code?: unknown; http?: { status?: unknown } } } | null)?.extensions;
  const status = extensions?.http?.status;
  return !extensions?.code && typeof status === 'number' && status >= 400 && status < 500;
};

// Apollo codes outside our documented set (docs/api.md), as the documented code they amount to (a bad operationName fails validation).
const DOCUMENTED_CODES: Record<string, string> = { OPERATION_RESOLUTION_FAILURE: 'GRAPHQL_VALIDATION_FAILED' };

/** The code our own validation rule gave its error, which Apollo's wrapper replaced with GRAPHQL_VALIDATION_FAILED. */
const ruleCode = (original: unknown): unknown =>
  (original as { originalError?: { extensions?: { code?: unknown } } } | null)?.originalError?.extensions?.code;

/** graphql-js parses recursively: brackets nested ~1,500 deep (within the token limit) overflow the stack. */
function overflowedStack(original: unknown): boolean {
  for (let cause = original; cause; cause = (cause as { originalError?: unknown }).originalError) {
    if (cause instanceof RangeError) return true;
  }
  return false;
}

/** Apollo's formatError, applied to every error it sends: an internal one keeps no message, only its path and code. */
export function formatError(error: GraphQLFormattedError, original?: unknown): GraphQLFormattedError {
  const code = String(error.extensions?.code);
  const own = code === 'GRAPHQL_VALIDATION_FAILED' ? ruleCode(original) : undefined;
  if (typeof own === 'string') return { ...error, extensions: { ...error.extensions, code: own } };
  if (code === 'GRAPHQL_PARSE_FAILED' && overflowedStack(original)) {
    return { message: 'Syntax Error: the document nests too deeply to parse.', extensions: { code } };
  }
  if (DOCUMENTED_CODES[code]) return { ...error, extensions: { ...error.extensions, code: DOCUMENTED_CODES[code] } };
  if (!isInternal(error)) return error;
  if (isCodelessRefusal(original)) return { message: error.message, extensions: { code: 'BAD_REQUEST' } };
  return {
    message: 'Internal server error',
    ...(error.path ? { path: error.path } : {}),
    extensions: { code: 'INTERNAL_SERVER_ERROR' },
  };
}

/** Logs each internal error's detail with the request id, and hands the client that id to quote. */
export function errorMaskingPlugin(logger: Logger): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didEncounterErrors({ errors, contextValue }) {
          for (const error of errors) {
            if (isCodelessRefusal(error)) continue;
            if (!error.extensions?.code || error.extensions.code === 'INTERNAL_SERVER_ERROR') {
              logger.error({ err: error.originalError ?? error, requestId: contextValue.requestId }, 'resolver failed');
            }
          }
        },
        async willSendResponse({ response, contextValue }) {
          const { requestId } = contextValue;
          if (response.body.kind !== 'single' || !response.body.singleResult.errors) return;
          response.body.singleResult.errors = response.body.singleResult.errors.map((e) =>
            isInternal(e) ? { ...e, extensions: { ...e.extensions, requestId } } : e,
          );
        },
      };
    },
  };
}
