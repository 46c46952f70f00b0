import { isSqlite } from './dialect.js';
import { freshReads } from '../lib/fresh-reads.js';
import { idleSqliteConnection, type Db } from './database.js';
import { endQuerySpan, startQuerySpan } from './query-spans.js';

/** The two counters the database's triggers bump (see the auth_epoch and data_epoch migrations). */
export interface Epochs {
  /** Bumped by every write that may end a bearer token. */
  auth: string;
  /** Bumped by every write to a table a GraphQL answer is read from. */
  data: string;
}

type Row = { auth: number | string; data: number | string } | undefined;

/** The part of knex's client the pooled read uses (a pg connection is node-postgres's Client). */
interface PooledClient {
  acquireConnection(): Promise<{ query(q: { name: string; text: string }): Promise<{ rows: Row[] }> }>;
  releaseConnection(conn: unknown): Promise<unknown>;
}

const READ = 'SELECT a.value AS auth, d.value AS data FROM auth_epoch a, data_epoch d WHERE a.id = 1 AND d.id = 1';

export class EpochStore {
  /** Concurrent requests share a read that started after they arrived: one round trip serves them all. */
  private readonly sharedPgRead = freshReads(() => this.readPg());

  constructor(private readonly db: Db) {}

  /** Both values in one statement, as strings (PostgreSQL returns bigint as one). Every API request reads them. */
  async current(): Promise<Epochs> {
    // SQLite: straight on the idle connection (a prepared statement, a few µs), not through knex's pool.
    const conn = idleSqliteConnection(this.db);
    const row: Row = conn
      ? this.readSqlite(conn)
      : // SQLite's one connection busy (a transaction open on it) or not opened yet: wait for it through knex.
        isSqlite(this.db) || this.db.isTransaction
        ? await this.db
            .first<Row>({ auth: 'a.value', data: 'd.value' })
            .from({ a: 'auth_epoch' })
            .crossJoin({ d: 'data_epoch' } as never)
            .where({ 'a.id': 1, 'd.id': 1 })
        : await this.sharedPgRead();
    if (!row) throw new Error('auth_epoch or data_epoch has no row: run the migrations');
    return { auth: String(row.auth), data: String(row.data) };
  }

  /** Outside knex, so outside its query events: the span is made here (when a request is being traced). */
  private readSqlite(conn: NonNullable<ReturnType<typeof idleSqliteConnection>>): Row {
    const span = startQuerySpan('sqlite', READ);
    try {
      const row = conn.prepare(READ).get() as Row;
      if (span) endQuerySpan(span);
      return row;
    } catch (err) {
      if (span) endQuerySpan(span, err);
      throw err;
    }
  }

  /** PostgreSQL: a named statement on a pooled connection, without knex's query building per request. */
  private async readPg(): Promise<Row> {
    const client = this.db.client as PooledClient;
    const conn = await client.acquireConnection();
    const span = startQuerySpan('postgresql', READ);
    try {
      const row = (await conn.query({ name: 'roster_epochs', text: READ })).rows[0];
      if (span) endQuerySpan(span);
      return row;
    } catch (err) {
      if (span) endQuerySpan(span, err);
      throw err;
    } finally {
      await client.releaseConnection(conn);
    }
  }
}
