import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Stores } from '../stores/stores.js';
import { isActive } from '../services/account-state.js';

type Client = NonNullable<KoaContextWithOIDC['oidc']['client']>;
interface Token {
  clientId?: string;
  accountId?: string;
}

/**
 * Who may learn what a token is: only the app it was issued to, authenticated with its secret, and only while
 * /graphql would honour it — a token whose user is no longer active is inactive here too. The provider has
 * already checked the token's expiry and its grant; anything else is answered `{ "active": false }`.
 */
export function createIntrospectionPolicy(stores: Stores) {
  return async (_ctx: KoaContextWithOIDC, client: Client, token: Token): Promise<boolean> => {
    if (client.clientAuthMethod === 'none' || token.clientId !== client.clientId) return false;
    if (token.accountId === undefined) return true;
    return isActive(await stores.users.findByKey(token.accountId));
  };
}
