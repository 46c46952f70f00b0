/**
 * The explorer at /graphql signs users in as this built-in public client (code + PKCE, no secret). It has no
 * client_apps row: the provider knows it from its configuration, and a user token issued to it is a user
 * token at the app EXPLORER_APP_ID.
 */
export const EXPLORER_CLIENT_ID = 'roster-explorer';

/** The explorer's app id in a viewer: no client_apps row has id 0. */
export const EXPLORER_APP_ID = 0;

/** What the explorer asks for: reading the API as the user, with emails, and the name it shows. */
export const EXPLORER_SCOPE = 'openid email profile';

/** The explorer's name on the consent page, in a user's authorizations and in `viewer { app { name } }`. */
export const explorerName = (serviceName: string): string => `${serviceName} explorer`;
