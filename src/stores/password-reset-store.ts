import type { Db } from './database.js';

export interface PasswordResetRow {
  id: string;
  secretHash: string;
  userId: number;
  expiresAt: number;
  usedAt: number | null;
}

/** Password reset links: the public id of each, the hash of its secret, whose it is and until when. */
export class PasswordResetStore {
  constructor(private readonly db: Db) {}

  async create(row: { id: string; secretHash: string; userId: number; expiresAt: number }, now: number): Promise<void> {
    await this.db('password_resets').insert({
      id: row.id,
      secret_hash: row.secretHash,
      user_id: row.userId,
      created_at: now,
      expires_at: row.expiresAt,
      used_at: null,
    });
  }

  async find(id: string): Promise<PasswordResetRow | undefined> {
    const row = (await this.db('password_resets').where({ id }).first()) as
      | {
          id: string;
          secret_hash: string;
          user_id: number;
          expires_at: number | string;
          used_at: number | string | null;
        }
      | undefined;
    if (!row) return undefined;
    return {
      id: row.id,
      secretHash: row.secret_hash,
      userId: Number(row.user_id),
      expiresAt: Number(row.expires_at),
      usedAt: row.used_at === null ? null : Number(row.used_at),
    };
  }

  /** Marks the link used if it is still unused and unexpired: one atomic update, so only one use wins. */
  async consume(id: string, now: number): Promise<boolean> {
    const changed = await this.db('password_resets')
      .where({ id })
      .whereNull('used_at')
      .andWhere('expires_at', '>', now)
      .update({ used_at: now });
    return changed === 1;
  }

  /** Ends every link of the user (their password just changed); returns how many. */
  async deleteForUser(userId: number): Promise<number> {
    return this.db('password_resets').where({ user_id: userId }).delete();
  }

  async deleteExpired(now: number): Promise<number> {
    return this.db('password_resets').where('expires_at', '<', now).delete();
  }
}
