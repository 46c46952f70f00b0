import type Provider from 'oidc-provider';

export interface MintedToken {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

/** Mints a user access token through the provider's own token store, as if the user had consented. */
export async function mintAccessToken(
  provider: Provider,
  input: { accountId: string; clientId: string; scope: string; expiresIn?: number },
): Promise<MintedToken> {
  const client = await provider.Client.find(input.clientId);
  if (!client) throw new Error(`no app with client id ${input.clientId}`);
  const grant = new provider.Grant({ accountId: input.accountId, clientId: input.clientId });
  grant.addOIDCScope(input.scope);
  const grantId = await grant.save();
  const token = new provider.AccessToken({
    accountId: input.accountId,
    client,
    grantId,
    scope: input.scope,
    gty: 'authorization_code',
    ...(input.expiresIn === undefined ? {} : { expiresIn: input.expiresIn }),
  });
  const value = await token.save();
  return { access_token: value, token_type: 'Bearer', expires_in: token.expiration, scope: input.scope };
}
