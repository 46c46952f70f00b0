import type { Stores } from '../stores/stores.js';
import type { ClientAppRow, UserRow } from '../stores/types.js';
import type { AppService } from './app-service.js';
import { APP_TOKEN_PREFIX } from '../lib/ids.js';
import { sha256 } from '../lib/secrets.js';
import { Conflict, InvalidInput, NotFound } from './errors.js';
import type { UserService } from './user-service.js';
import { isActive, isSuspended } from './account-state.js';
import { audited, type Actor } from './audit.js';
import { EXPLORER_CLIENT_ID } from './explorer-client.js';

/** An app the user has authorized, with every scope granted to it across their grants. */
export interface Authorization {
  clientId: string;
  appName: string;
  scopes: string[];
}

/** What users have granted apps: listed and revoked by the user, and the rule for issuing a token. */
export class GrantService {
  constructor(
    private readonly stores: Stores,
    private readonly users: UserService,
    private readonly apps: AppService,
  ) {}

  /** The apps the user has live grants to (apps since deleted left out), scopes merged per app. */
  async listForUser(user: UserRow): Promise<Authorization[]> {
    const scopesByClient = new Map<string, Set<string>>();
    for (const grant of await this.stores.oidc.grantsOf(user.uid)) {
      const scopes = scopesByClient.get(grant.clientId) ?? new Set<string>();
      grant.scopes.forEach((s) => scopes.add(s));
      scopesByClient.set(grant.clientId, scopes);
    }
    const names = new Map(
      (await this.stores.apps.findByClientIds([...scopesByClient.keys()])).map((a) => [a.clientId, a.name]),
    );
    // The built-in explorer has no row, and is listed (and revoked) like any app.
    if (scopesByClient.has(EXPLORER_CLIENT_ID))
      names.set(EXPLORER_CLIENT_ID, (await this.apps.nameOf(EXPLORER_CLIENT_ID))!);
    return [...scopesByClient]
      .filter(([clientId]) => names.has(clientId))
      .map(([clientId, scopes]) => ({ clientId, appName: names.get(clientId)!, scopes: [...scopes].sort() }));
  }

  /** Revokes every grant the user gave the app, with the codes and tokens issued under them. */
  async revoke(user: UserRow, clientId: string, by?: Actor): Promise<void> {
    const revoke = (s: Stores) => s.oidc.revokeGrants(user.uid, clientId);
    await audited(this.stores, by, revoke, () => ({
      action: 'token.revoked',
      userId: user.id,
      subject: user.uid,
      clientId,
    }));
  }

  /** An operator's revocation: the user's grants to the app (every app if none is named), with their tokens. */
  async revokeFor(userKey: string, clientId?: string): Promise<{ user: UserRow; grants: number }> {
    const user = await this.users.getByKey(userKey);
    if (clientId !== undefined && clientId !== EXPLORER_CLIENT_ID) await this.apps.getByClientId(clientId);
    return { user, grants: await this.stores.oidc.revokeGrants(user.uid, clientId) };
  }

  /**
   * Revokes the grant a user token (access or refresh) was issued under, with every token under it: a
   * leaked token takes its siblings with it, and the user consents again at that app.
   */
  async revokeToken(token: string): Promise<{ uid: string; clientId: string }> {
    if (token.startsWith(APP_TOKEN_PREFIX)) {
      throw new InvalidInput('is an app token: replace it with `roster app rotate-token --client ID`', 'token');
    }
    const found = await this.stores.oidc.tokenGrant(sha256(token));
    if (!found) throw new NotFound('no live user token matches: unknown, expired or already revoked');
    await this.stores.oidc.revokeByGrantId(found.grantId);
    return { uid: found.accountId, clientId: found.clientId };
  }

  /**
   * The user (email or uid) and the app (client id) a new user token would be issued to, when it may be:
   * the user is active and the app is not suspended (its owner is active).
   */
  async tokenSubject(userKey: string, clientId: string): Promise<{ user: UserRow; app: ClientAppRow }> {
    const user = await this.users.getByKey(userKey);
    if (!isActive(user)) throw new Conflict(`user ${user.uid} is ${user.activationState}`);
    const app = await this.apps.getByClientId(clientId);
    const owner = await this.users.findById(app.ownerId);
    if (owner && isSuspended(owner)) {
      throw new Conflict(`app ${app.clientId} is suspended: its owner ${owner.uid} is ${owner.activationState}`);
    }
    return { user, app };
  }
}
