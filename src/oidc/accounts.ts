import type { Account, KoaContextWithOIDC } from 'oidc-provider';
import type { Stores } from '../stores/stores.js';
import { allClaims } from './claims.js';
import { isActive } from '../services/account-state.js';

/** oidc-provider's account lookup: the account id is the user's public uid; pending or deactivated users have none. */
export function createFindAccount(stores: Stores) {
  return async function findAccount(_ctx: KoaContextWithOIDC, id: string): Promise<Account | undefined> {
    const user = await stores.users.findByUid(id);
    if (!user || !isActive(user)) return undefined;
    return {
      accountId: user.uid,
      // The provider filters these by granted scope and replaces `sub` with the pairwise identifier.
      async claims() {
        return allClaims(user, user.uid);
      },
    };
  };
}
