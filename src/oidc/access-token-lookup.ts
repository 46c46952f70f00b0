import type Provider from 'oidc-provider';
import type { AccessTokenLookup } from '../services/bearer.js';

/** User access tokens are the provider's: found through it, and alive only while their grant is. */
export function createAccessTokenLookup(identity: { readonly provider: Provider }): AccessTokenLookup {
  return async (token) => {
    const { provider } = identity;
    const accessToken = await provider.AccessToken.find(token);
    if (!accessToken?.grantId) return undefined;
    const grant = await provider.Grant.find(accessToken.grantId);
    if (!grant || grant.accountId !== accessToken.accountId || grant.clientId !== accessToken.clientId) {
      return undefined;
    }
    // `exp` is in seconds; a grant without one lives as long as its tokens.
    const expiresAt = Math.min(accessToken.exp ?? Infinity, grant.exp ?? Infinity) * 1000;
    // The provider still finds a token up to its clock tolerance (15 s) past `exp`: ours ends at `exp`.
    if (expiresAt <= Date.now()) return undefined;
    return {
      accountId: accessToken.accountId,
      clientId: accessToken.clientId!,
      scopes: [...accessToken.scopes],
      expiresAt,
    };
  };
}
