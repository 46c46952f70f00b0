import type { Response } from 'express';
import { sendErrorPage } from './pages/error-page.js';
import { sendJsonError } from './json-error.js';
import { PATHS } from './paths.js';

/**
 * Every path family Roster serves itself, in one table: whether it answers with HTML pages (page headers,
 * the error page) and its bounded metrics label. A path no family claims is oidc-provider's (`oidc`).
 */
export const ROUTE_FAMILIES: readonly { prefix: string; pages: boolean; label: string }[] = [
  // Before /graphql, which it sits under: streams last minutes, and their durations are their own.
  { prefix: PATHS.graphqlStream, pages: false, label: PATHS.graphqlStream },
  { prefix: PATHS.graphql, pages: false, label: PATHS.graphql },
  { prefix: PATHS.userinfo, pages: false, label: PATHS.userinfo },
  { prefix: PATHS.healthz, pages: false, label: PATHS.healthz },
  { prefix: PATHS.readyz, pages: false, label: PATHS.readyz },
  { prefix: PATHS.metrics, pages: false, label: PATHS.metrics },
  { prefix: PATHS.stylesheet, pages: false, label: PATHS.stylesheet },
  // The password reset is a page family under the account settings.
  { prefix: PATHS.account, pages: true, label: PATHS.account },
  { prefix: PATHS.interaction, pages: true, label: PATHS.interaction },
  // oidc-provider's own pages: sign-in errors and sign-out.
  { prefix: '/auth', pages: true, label: 'oidc' },
  { prefix: '/session', pages: true, label: 'oidc' },
];

const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);
/** The family a path belongs to, if Roster serves it itself. */
export const familyOf = (path: string) => ROUTE_FAMILIES.find((f) => under(path, f.prefix));

/** Where the answers are HTML pages: ours (account settings, sign-in) and oidc-provider's sign-in and sign-out. */
export const PAGE_PATHS = ROUTE_FAMILIES.filter((f) => f.pages).map((f) => f.prefix);

const isPagePath = (path: string) => familyOf(path)?.pages === true;

/** Where a path belongs, as a bounded metrics label (never the path itself: ids and garbage stay out). */
export const routeLabel = (path: string): string => familyOf(path)?.label ?? 'oidc';

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
