import type { Knex } from 'knex';
import type { Db } from './database.js';
import { isSqlite } from './dialect.js';
import { ACTIVE } from './types.js';

/** A personal access token as listed: never its value (only its hash is kept). */
export interface PersonalTokenRow {
  id: number;
  userId: number;
  name: string;
  scopes: string[];
  createdAt: number;
  expiresAt: number;
  lastUsedAt: number | null;
}

/** A live token, as a bearer lookup needs it: with its user's public id. */
export interface LivePersonalToken extends PersonalTokenRow {
  uid: string;
}

export interface NewPersonalToken {
  userId: number;
  name: string;
  tokenHash: string;
  scopes: readonly string[];
  expiresAt: number;
}

class OverTheCap extends Error {}

const toRow = (r: Record<string, unknown>): PersonalTokenRow => ({
  id: Number(r.id),
  userId: Number(r.user_id),
  name: String(r.name),
  scopes: String(r.scopes).split(' ').filter(Boolean),
  createdAt: Number(r.created_at),
  expiresAt: Number(r.expires_at),
  lastUsedAt: r.last_used_at === null ? null : Number(r.last_used_at),
});

export class PersonalTokenStore {
  constructor(private readonly db: Db) {}

  /**
   * Stores the token while its user has fewer than `max` (expired ones count until deleted); undefined when
   * they have that many. Creations racing each other never pass together: on PostgreSQL each locks the user's
   * row first; on SQLite the insert takes the one write lock. Each counts after inserting, and rolls back.
   */
  async createWithin(max: number, input: NewPersonalToken, now = Date.now()): Promise<PersonalTokenRow | undefined> {
    return this.db
      .transaction(async (trx: Knex.Transaction) => {
        if (!isSqlite(this.db)) await trx('users').where({ id: input.userId }).forNoKeyUpdate().first('id');
        const [row] = await trx('personal_tokens')
          .insert({
            user_id: input.userId,
            name: input.name,
            token_hash: input.tokenHash,
            scopes: input.scopes.join(' '),
            created_at: now,
            expires_at: input.expiresAt,
            last_used_at: null,
          })
          .returning('*');
        const count = await trx('personal_tokens').where({ user_id: input.userId }).count({ n: '*' }).first();
        if (Number(count?.n ?? 0) > max) throw new OverTheCap();
        return toRow(row as Record<string, unknown>);
      })
      .catch((err: unknown) => {
        if (err instanceof OverTheCap) return undefined;
        throw err;
      });
  }

  /** The user's tokens, newest first. */
  async listByUser(userId: number): Promise<PersonalTokenRow[]> {
    const rows = await this.db('personal_tokens').where({ user_id: userId }).orderBy('id', 'desc');
    return rows.map(toRow);
  }

  /** The token with this hash while it works: not expired, its user active. */
  async findLive(tokenHash: string, now = Date.now()): Promise<LivePersonalToken | undefined> {
    const row = await this.db('personal_tokens as t')
      .join('users as u', 'u.id', 't.user_id')
      .where('t.token_hash', tokenHash)
      .andWhere('t.expires_at', '>', now)
      .andWhere('u.activation_state', ACTIVE)
      .first('t.*', 'u.uid');
    return row ? { ...toRow(row as Record<string, unknown>), uid: String(row.uid) } : undefined;
  }

  /** Deletes the token (of `userId` only, when given); the deleted row, or undefined when there was none. */
  async delete(id: number, userId?: number): Promise<PersonalTokenRow | undefined> {
    return this.db.transaction(async (trx) => {
      const where = userId === undefined ? { id } : { id, user_id: userId };
      const row = await trx('personal_tokens').where(where).first();
      if (!row) return undefined;
      await trx('personal_tokens').where({ id }).delete();
      return toRow(row as Record<string, unknown>);
    });
  }

  /** Deletes every token of the user; how many. */
  deleteForUser(userId: number): Promise<number> {
    return this.db('personal_tokens').where({ user_id: userId }).delete();
  }

  /** Marks the tokens used at `at`: one statement for all of them (never moving a mark back). */
  async markUsed(ids: readonly number[], at: number): Promise<void> {
    if (ids.length === 0) return;
    await this.db('personal_tokens')
      .whereIn('id', ids)
      .andWhere((q) => void q.whereNull('last_used_at').orWhere('last_used_at', '<', at))
      .update({ last_used_at: at });
  }
}
