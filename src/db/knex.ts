import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { migrationSource } from './migrations/index.js';

export type Db = Knex;

interface SqliteConnection {
  pragma(s: string): unknown;
  prepare(sql: string): unknown;
}

const STATEMENT_CACHE_SIZE = 200;

/**
 * knex prepares every statement anew; better-sqlite3 statements are reusable once a call returns,
 * so the connection keeps the most recently used ones (an LRU by SQL text).
 */
function reusePreparedStatements(conn: SqliteConnection): void {
  const prepare = conn.prepare.bind(conn);
  const cache = new Map<string, unknown>();
  conn.prepare = (sql: string) => {
    let statement = cache.get(sql);
    if (statement === undefined) {
      statement = prepare(sql);
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    } else {
      cache.delete(sql);
    }
    cache.set(sql, statement);
    return statement;
  };
}

/** Opens the database named by DATABASE_URL: `sqlite:<path>` or `postgres://...`. */
export function createDb(databaseUrl: string, options: { poolMax?: number } = {}): Db {
  if (databaseUrl.startsWith('sqlite:')) {
    const filename = databaseUrl.slice('sqlite:'.length) || ':memory:';
    if (filename !== ':memory:') mkdirSync(dirname(filename), { recursive: true });
    return knexFactory({
      client: 'better-sqlite3',
      connection: { filename },
      useNullAsDefault: true,
      // One connection: better-sqlite3 is synchronous, and one writer avoids SQLITE_BUSY.
      pool: {
        min: 1,
        max: 1,
        afterCreate(conn: SqliteConnection, done: (err: Error | null, conn: unknown) => void) {
          reusePreparedStatements(conn);
          conn.pragma('journal_mode = WAL');
          conn.pragma('synchronous = NORMAL');
          conn.pragma('foreign_keys = ON');
          conn.pragma('busy_timeout = 5000');
          done(null, conn);
        },
      },
      migrations: { migrationSource },
    });
  }
  return knexFactory({
    client: 'pg',
    connection: databaseUrl,
    pool: { min: 0, max: options.poolMax ?? 10 },
    migrations: { migrationSource },
  });
}

export function isSqlite(db: Db): boolean {
  return db.client.config.client === 'better-sqlite3';
}

/** Applies pending migrations; returns the names applied. */
export async function migrate(db: Db): Promise<string[]> {
  const [, applied] = (await db.migrate.latest()) as [number, string[]];
  return applied;
}
