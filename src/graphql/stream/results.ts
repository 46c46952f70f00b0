import type { ExecutionResult, FormattedExecutionResult } from 'graphql';
import type { Logger } from 'pino';
import { formatError } from '../plugins/error-masking.js';

/**
 * A stream's result as /graphql would send it: an error without a code (a database failure, a bug) is
 * logged with the request id and sent as INTERNAL_SERVER_ERROR with that id, never its message.
 */
export function maskedResult(result: ExecutionResult, requestId: string, logger: Logger): FormattedExecutionResult {
  if (!result.errors?.length) return result;
  const errors = result.errors.map((error) => {
    const formatted = error.toJSON();
    if (formatted.extensions?.code) return formatError(formatted, error);
    logger.error({ err: error.originalError ?? error, requestId }, 'stream resolver failed');
    const internal = formatError({ ...formatted, extensions: { code: 'INTERNAL_SERVER_ERROR' } }, error);
    return { ...internal, extensions: { ...internal.extensions, requestId } };
  });
  return { ...result, errors };
}
