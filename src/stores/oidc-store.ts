import { chunks } from './chunks.js';
import type { Db } from './database.js';

export interface OidcRecord {
  payload: Record<string, unknown>;
  expiresAt: number | null;
  consumedAt: number | null;
}

export interface OidcUpsert {
  payload: Record<string, unknown>;
  grantId: string | null;
  uid: string | null;
  userCode: string | null;
  accountId: string | null;
  clientId: string | null;
  expiresAt: number | null;
}

/** A user's grant to one app, as the account pages list it. */
export interface GrantRecord {
  grantId: string;
  clientId: string;
  scopes: string[];
  expiresAt: number | null;
}

/** oidc-provider's storage, one table for every model; keys arrive already hashed. */
export class OidcStore {
  constructor(private readonly db: Db) {}

  async upsert(model: string, id: string, record: OidcUpsert): Promise<void> {
    await this.db('oidc_payloads')
      .insert({
        model,
        id,
        payload: JSON.stringify(record.payload),
        grant_id: record.grantId,
        uid: record.uid,
        user_code: record.userCode,
        account_id: record.accountId,
        client_id: record.clientId,
        expires_at: record.expiresAt,
        consumed_at: null,
      })
      .onConflict(['model', 'id'])
      .merge(['payload', 'grant_id', 'uid', 'user_code', 'account_id', 'client_id', 'expires_at']);
  }

  async find(model: string, column: 'id' | 'uid' | 'user_code', value: string): Promise<OidcRecord | undefined> {
    const row = await this.db('oidc_payloads')
      .where({ model, [column]: value })
      .first('payload', 'expires_at', 'consumed_at');
    if (!row) return undefined;
    return {
      payload: JSON.parse(String(row.payload)) as Record<string, unknown>,
      expiresAt: row.expires_at === null ? null : Number(row.expires_at),
      consumedAt: row.consumed_at === null ? null : Number(row.consumed_at),
    };
  }

  async consume(model: string, id: string, now = Date.now()): Promise<void> {
    await this.db('oidc_payloads').where({ model, id }).update({ consumed_at: now });
  }

  async destroy(model: string, id: string): Promise<void> {
    await this.db('oidc_payloads').where({ model, id }).delete();
  }

  /** Every model's rows of a grant: tokens and codes die with it. */
  /** The grant, user and app of a live user token (access or refresh), by the token's hash. */
  async tokenGrant(
    idHash: string,
    now = Date.now(),
  ): Promise<{ grantId: string; accountId: string; clientId: string } | undefined> {
    const row = await this.db('oidc_payloads')
      .whereIn('model', ['AccessToken', 'RefreshToken'])
      .andWhere({ id: idHash })
      .whereNotNull('grant_id')
      .andWhere((q) => void q.whereNull('expires_at').orWhere('expires_at', '>', now))
      .first<{ grant_id: string; account_id: string; client_id: string } | undefined>(
        'grant_id',
        'account_id',
        'client_id',
      );
    return row && { grantId: row.grant_id, accountId: row.account_id, clientId: row.client_id };
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.db('oidc_payloads').where({ grant_id: grantId }).delete();
  }

  /** The user's live grants, newest first. */
  async grantsOf(accountId: string, now = Date.now()): Promise<GrantRecord[]> {
    const rows = await this.db('oidc_payloads')
      .where({ model: 'Grant', account_id: accountId })
      .andWhere((q) => void q.whereNull('expires_at').orWhere('expires_at', '>', now))
      .orderBy('expires_at', 'desc')
      .select('payload', 'expires_at');
    return rows.map((row: { payload: string; expires_at: string | number | null }) => {
      const payload = JSON.parse(row.payload) as { jti: string; clientId: string; openid?: { scope?: string } };
      return {
        grantId: payload.jti,
        clientId: payload.clientId,
        scopes: (payload.openid?.scope ?? '').split(' ').filter(Boolean),
        expiresAt: row.expires_at === null ? null : Number(row.expires_at),
      };
    });
  }

  /** The id of the newest live grant the user gave the app, if any: consent is remembered across sessions. */
  async latestGrantId(accountId: string, clientId: string, now = Date.now()): Promise<string | undefined> {
    const row = await this.db('oidc_payloads')
      .where({ model: 'Grant', account_id: accountId, client_id: clientId })
      .andWhere((q) => void q.whereNull('expires_at').orWhere('expires_at', '>', now))
      .orderBy('expires_at', 'desc')
      .first('payload');
    return row ? (JSON.parse(String(row.payload)) as { jti: string }).jti : undefined;
  }

  /**
   * Revokes every grant the user gave the app (every app when `clientId` is left out), with the codes
   * and tokens issued under them; returns how many grants.
   */
  async revokeGrants(accountId: string, clientId?: string): Promise<number> {
    const grants = this.db('oidc_payloads').where({ model: 'Grant', account_id: accountId });
    if (clientId !== undefined) void grants.andWhere({ client_id: clientId });
    const grantIds: string[] = await grants.pluck('grant_id');
    for (const part of chunks(grantIds)) await this.db('oidc_payloads').whereIn('grant_id', part).delete();
    return grantIds.length;
  }

  /** Ends the user's provider sessions and refresh tokens: nobody signs in or refreshes as them any more. */
  async endSessions(accountId: string): Promise<number> {
    return this.db('oidc_payloads')
      .where({ account_id: accountId })
      .whereIn('model', ['Session', 'RefreshToken'])
      .delete();
  }

  /** Deletes every row filed under the user (sessions, grants, codes, tokens) and every row of their grants. */
  async deleteForAccount(accountId: string): Promise<void> {
    await this.revokeGrants(accountId);
    await this.db('oidc_payloads').where({ account_id: accountId }).delete();
  }

  /** How many unexpired tokens an app holds of its own (client_credentials). */
  async liveClientTokens(clientId: string, now = Date.now()): Promise<number> {
    const row = await this.db('oidc_payloads')
      .where({ model: 'ClientCredentials', client_id: clientId })
      .andWhere('expires_at', '>', now)
      .count({ n: '*' })
      .first();
    return Number(row?.n ?? 0);
  }

  /** Deletes rows that expired before `now`; returns how many. */
  async deleteExpired(now = Date.now()): Promise<number> {
    return this.db('oidc_payloads').whereNotNull('expires_at').andWhere('expires_at', '<', now).delete();
  }
}
