import type { Account, KoaContextWithOIDC } from 'oidc-provider';
import type { Stores } from '../db/stores.js';
import { allClaims, pairwiseSubject } from './claims.js';

/** oidc-provider's account lookup: the account id is the user's public uid; pending or deactivated users have none. */
export function createFindAccount(stores: Stores, pairwiseSalt: string) {
  return async function findAccount(ctx: KoaContextWithOIDC, id: string): Promise<Account | undefined> {
    const user = await stores.users.findByUid(id);
    if (!user || user.activationState !== 'active') return undefined;
    return {
      accountId: user.uid,
      // The provider filters these by granted scope; `sub` is made pairwise here, per app.
      async claims() {
        const clientId = ctx.oidc.client?.clientId ?? '';
        return allClaims(user, pairwiseSubject(clientId, user.uid, pairwiseSalt));
      },
    };
  };
}
