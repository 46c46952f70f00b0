import type { Knex } from 'knex';

/** True on the embedded SQLite database; false on PostgreSQL (the only other dialect). */
export function isSqlite(db: Knex): boolean {
  return (db.client as Knex.Client).config.client === 'better-sqlite3';
}
