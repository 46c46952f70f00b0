import type Provider from 'oidc-provider';
import type { AccessTokenLookup } from '../services/bearer.js';

/** The provider still finds a token up to its clock tolerance (15 s) past `exp`: ours ends at `exp`. */
const alive = (expiresAt: number) => expiresAt > Date.now();

/**
 * Access tokens are the provider's: a user's (alive only while its grant is) or an app's own, from the
 * client_credentials grant. Found through the provider, the user's kind first: it is the common one.
 */
export function createAccessTokenLookup(identity: { readonly provider: Provider }): AccessTokenLookup {
  return async (token) => {
    const { provider } = identity;
    const accessToken = await provider.AccessToken.find(token);
    if (!accessToken) {
      const own = await provider.ClientCredentials.find(token);
      if (!own?.clientId || own.exp === undefined || !alive(own.exp * 1000)) return undefined;
      return { kind: 'client', clientId: own.clientId, expiresAt: own.exp * 1000 };
    }
    if (!accessToken.grantId) return undefined;
    const grant = await provider.Grant.find(accessToken.grantId);
    if (!grant || grant.accountId !== accessToken.accountId || grant.clientId !== accessToken.clientId) {
      return undefined;
    }
    // `exp` is in seconds; a grant without one lives as long as its tokens.
    const expiresAt = Math.min(accessToken.exp ?? Infinity, grant.exp ?? Infinity) * 1000;
    if (!alive(expiresAt)) return undefined;
    return {
      kind: 'user',
      accountId: accessToken.accountId,
      clientId: accessToken.clientId!,
      scopes: [...accessToken.scopes],
      expiresAt,
    };
  };
}
