import type Provider from 'oidc-provider';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import type { Stores } from '../stores/stores.js';

/**
 * Live tokens an app may hold for itself: it needs one at a time (reused until it expires), a few while
 * instances of it each fetch their own. Past it the grant is refused rather than the oldest ended: ending
 * one moves the auth epoch, which would let an app empty every instance's token cache in a loop.
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

/** Refuses a new token of an app that holds MAX_CLIENT_TOKENS live ones (requests racing may pass by a few). */
export function capClientTokens(provider: Provider, stores: Stores): void {
  const { prototype } = provider.ClientCredentials;
  const save: (this: typeof prototype) => Promise<string> = prototype.save; // eslint-disable-line @typescript-eslint/unbound-method -- called on its own object below
  prototype.save = async function capped(this: typeof prototype) {
    if (this.clientId && (await stores.oidc.liveClientTokens(this.clientId)) >= MAX_CLIENT_TOKENS) {
      throw new errors.InvalidRequest(
        `this app holds ${MAX_CLIENT_TOKENS} live tokens of its own already: reuse one until it expires, or revoke one`,
      );
    }
    return save.call(this);
  };
}

/**
 * Provider middleware closing a race with a new client secret: a grant authenticated with the old secret
 * whose token is stored just after the rotation removed the app's tokens would outlive it. Once the token
 * is stored, the app's secret is read again, waiting for a rotation under way; if it changed, the token is
 * destroyed and the answer is the one a wrong secret gets.
 */
export function endTokensOfOldSecrets(stores: Stores) {
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> => {
    await next();
    // Only the grant that issued it: introspection and revocation name an app's own token too.
    if (ctx.oidc?.route !== 'token' || ctx.oidc.params?.grant_type !== 'client_credentials' || ctx.status !== 200)
      return;
    const issued = ctx.oidc.entities.ClientCredentials;
    const client = ctx.oidc.client;
    if (!issued?.clientId || !client || issued.clientId !== client.clientId) return;
    const current = await stores.apps.clientSecretHashOf(issued.clientId);
    if (current === client.clientSecret) return;
    await issued.destroy();
    ctx.status = 401;
    ctx.body = { error: 'invalid_client', error_description: 'client authentication failed' };
  };
}
