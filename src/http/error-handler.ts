import type { ErrorRequestHandler } from 'express';
import type { Logger } from 'pino';
import { sendFailure } from './route-format.js';

interface HttpError extends Error {
  status?: number;
  statusCode?: number;
  type?: string;
  expose?: boolean;
}

/** body-parser's refusals (by its error type), in our words. */
const BODY_REFUSALS: Record<string, string> = {
  'entity.too.large': 'The request body is too large.',
  'entity.parse.failed': 'The request body is not valid JSON.',
  'parameters.too.many': 'The form has too many fields.',
  'charset.unsupported': 'The request body must be UTF-8.',
  'encoding.unsupported': 'The Content-Encoding of the request body is not supported.',
};

const CODES: Record<number, string> = { 413: 'PAYLOAD_TOO_LARGE', 415: 'UNSUPPORTED_MEDIA_TYPE' };

/**
 * Turns a refusal raised on the way in (body parsing, a wrong body type) into a 4xx with a one-line reason
 * and a code; anything else is a 500 with a request id, logged with its error and stack, never sent.
 * Each in the format of its route: an error page on page routes, JSON elsewhere.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: HttpError, req, res, next) => {
    if (res.locals.timedOut) return; // already answered with 503; the late failure is moot
    const status = err.status ?? err.statusCode ?? 500;
    const refused = status >= 400 && status < 500 && err.expose !== false;
    if (!refused) {
      logger.error({ err, requestId: res.locals.requestId, method: req.method, path: req.path }, 'request failed');
    }
    if (res.headersSent) return next(err);
    sendFailure(
      res,
      req.path,
      refused
        ? {
            status,
            code: CODES[status] ?? 'BAD_REQUEST',
            message: BODY_REFUSALS[err.type ?? ''] ?? err.message.split('\n')[0]!,
          }
        : { status: 500, code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error', internal: true },
    );
  };
}
