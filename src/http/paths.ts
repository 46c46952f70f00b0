/**
 * Where Roster mounts each of its parts, in one table: the routers mount here, the pages link here, and the
 * route families (page headers, error format, metrics labels) are built from here, so none can drift.
 */
export const PATHS = {
  graphql: '/graphql',
  /** Live subscriptions, inside the /graphql router. */
  graphqlStream: '/graphql/stream',
  /** The explorer's redirect URI (on BASE_URL): it hands the code back to the explorer, inside the /graphql router. */
  explorerCallback: '/graphql/explorer/callback',
  userinfo: '/openid/userinfo',
  healthz: '/healthz',
  readyz: '/readyz',
  metrics: '/metrics',
  stylesheet: '/assets/roster.css',
  account: '/account',
  passwordReset: '/account/password',
  interaction: '/interaction',
} as const;

/** A page of account settings, e.g. `accountHref('/apps/3/edit')`; the settings themselves without `rest`. */
export const accountHref = (rest = ''): string => `${PATHS.account}${rest}`;

/** The webhooks page of an app (the list and the form that adds one). */
export const appWebhooksHref = (appId: number, query = ''): string => accountHref(`/apps/${appId}/webhooks${query}`);

/** A webhook's page (its deliveries and attempts), or one of its actions (`ping`, `enable`, `delete`). */
export const webhookHref = (id: number, rest = ''): string => accountHref(`/webhooks/${id}${rest}`);

/** The personal access tokens page, or one token's action (`/3/delete`). */
export const accountTokensHref = (rest = ''): string => accountHref(`/tokens${rest}`);

/** A page of the password reset, e.g. `passwordHref('/forgot')`. */
export const passwordHref = (rest: string): string => `${PATHS.passwordReset}${rest}`;

/** The sign-in and consent page of one authorization request, or one of its form actions. */
export const interactionHref = (uid: string, action = ''): string =>
  `${PATHS.interaction}/${encodeURIComponent(uid)}${action && `/${action}`}`;
