import type { Db } from './knex.js';

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
        expires_at: record.expiresAt,
        consumed_at: null,
      })
      .onConflict(['model', 'id'])
      .merge(['payload', 'grant_id', 'uid', 'user_code', 'expires_at']);
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
  async revokeByGrantId(grantId: string): Promise<void> {
    await this.db('oidc_payloads').where({ grant_id: grantId }).delete();
  }

  /** Deletes rows that expired before `now`; returns how many. */
  async deleteExpired(now = Date.now()): Promise<number> {
    return this.db('oidc_payloads').whereNotNull('expires_at').andWhere('expires_at', '<', now).delete();
  }
}
