import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import type { Stores } from '../stores/stores.js';

/**
 * Live tokens an app may hold for itself: it needs one at a time (reused until it expires), a few while
 * instances of it each fetch their own. Issuing one more ends the oldest, so a leaked secret cannot be used
 * to fill the database with tokens.
 */
export const MAX_CLIENT_TOKENS = 20;

/**
 * The lifetime of an app's own token (client_credentials), and its one rule: it carries no scope. openid,
 * email and profile are what a user consents to; a token no user consented to that says `scope: email` would
 * tell a resource server (or introspection's reader) it may read emails. The provider drops unknown scopes
 * and would grant the known ones, and this is the last hook before the token is stored: refused here.
 */
export function clientCredentialsTtl(ttlSeconds: number) {
  return (_ctx: unknown, token: { scope?: string }): number => {
    if (token.scope) {
      throw new errors.InvalidScope(
        'an app’s own token carries no scope (openid, email and profile are a user’s consent): leave scope out',
        token.scope,
      );
    }
    return ttlSeconds;
  };
}

/** Provider middleware: once an app's own token is stored, its tokens past MAX_CLIENT_TOKENS end, before the answer. */
export function capClientTokens(stores: Stores) {
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> => {
    await next();
    const issued = ctx.oidc?.entities.ClientCredentials;
    if (issued?.clientId) await stores.oidc.trimClientTokens(issued.clientId, MAX_CLIENT_TOKENS);
  };
}
