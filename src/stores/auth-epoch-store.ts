import type { Db } from './knex.js';

/** The counter the database's triggers bump on every write that may end a bearer token. */
export class AuthEpochStore {
  constructor(private readonly db: Db) {}

  /** The current value, as a string (PostgreSQL returns bigint as one). */
  async current(): Promise<string> {
    const row = await this.db('auth_epoch').where({ id: 1 }).first<{ value: number | string } | undefined>('value');
    if (!row) throw new Error('auth_epoch has no row: run the migrations');
    return String(row.value);
  }
}
