import type { Response } from 'express';
import { sendErrorPage } from './pages/error-page.js';
import { sendJsonError } from './json-error.js';

/** Where the answers are HTML pages: ours (/account, /interaction) and oidc-provider's sign-in and sign-out. */
export const PAGE_PATHS = ['/account', '/interaction', '/auth', '/session'];

const isPagePath = (path: string) => PAGE_PATHS.some((p) => path === p || path.startsWith(`${p}/`));

export interface Failure {
  status: number;
  code: string;
  message: string;
  /** The message stands in for a cause only the log holds: a page shows the code and the request id alone. */
  internal?: boolean;
}

/**
 * Answers a failure in the format of the route family of `path` (as the request arrived, before any router
 * trimmed it): our error page on page routes, the GraphQL-shaped JSON error elsewhere. The page always shows
 * the request id; a JSON answer carries it for a 5xx, the failures someone will look up in the log.
 */
export function sendFailure(res: Response, path: string, failure: Failure): void {
  const { status, code, message } = failure;
  const { requestId } = res.locals;
  if (isPagePath(path)) {
    return sendErrorPage(res, status, { error: code, description: failure.internal ? undefined : message, requestId });
  }
  sendJsonError(res, status, code, message, status >= 500 ? { requestId } : undefined);
}
