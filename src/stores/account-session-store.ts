import { randomToken, sha256 } from '../lib/secrets.js';
import type { Db } from './database.js';

/** Sessions of the account pages; the cookie holds the token, the table only its hash. */
export class AccountSessionStore {
  constructor(private readonly db: Db) {}

  async create(userId: number, ttlMs: number, now = Date.now()): Promise<string> {
    const token = randomToken('', 32);
    await this.db('account_sessions').insert({
      id_hash: sha256(token),
      user_id: userId,
      created_at: now,
      expires_at: now + ttlMs,
    });
    return token;
  }

  /** The signed-in user's id, or undefined for an unknown or expired session. */
  async userIdFor(token: string, now = Date.now()): Promise<number | undefined> {
    const row = await this.db('account_sessions')
      .where({ id_hash: sha256(token) })
      .andWhere('expires_at', '>', now)
      .first('user_id');
    return row ? Number(row.user_id) : undefined;
  }

  async delete(token: string): Promise<void> {
    await this.db('account_sessions')
      .where({ id_hash: sha256(token) })
      .delete();
  }

  async deleteExpired(now = Date.now()): Promise<number> {
    return this.db('account_sessions').where('expires_at', '<', now).delete();
  }

  /** Ends every account-page session of the user; returns how many. */
  async deleteForUser(userId: number): Promise<number> {
    return this.db('account_sessions').where({ user_id: userId }).delete();
  }
}
