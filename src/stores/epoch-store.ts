import { isSqlite } from './dialect.js';
import { freshReads } from '../lib/fresh-reads.js';
import { idleSqliteConnection, type Db } from './database.js';
import { endQuerySpan, startQuerySpan } from './query-spans.js';

/** The two counters the database's triggers bump (see the auth_epoch and data_epoch migrations). */
export interface Epochs {
  /** Bumped by every write that may end a bearer token. */
  auth: string;
  /** Bumped by every write to a table a GraphQL answer is read from, but a registration added or removed. */
  data: string;
  /** The change log's newest position: where a registration added or removed is told. */
  changes: string;
}

type Row = { auth: number | string; data: number | string; changes: number | string | null } | undefined;

/** The part of knex's client the pooled read uses (a pg connection is node-postgres's Client). */
interface PooledClient {
  acquireConnection(): Promise<{ query(q: { text: string }): Promise<{ rows: Row[] }> }>;
  releaseConnection(conn: unknown): Promise<unknown>;
}

// The change log's newest position is kept beside the data epoch by a trigger: the log itself is not read here.
const READ =
  'SELECT a.value AS auth, d.value AS data, d.changes_head AS changes FROM auth_epoch a, data_epoch d' +
  ' WHERE a.id = 1 AND d.id = 1';

/** knex's raw result: SQLite's rows, or node-postgres's result. */
const firstRow = (result: Row[] | { rows: Row[] }): Row => (Array.isArray(result) ? result[0] : result.rows[0]);

export class EpochStore {
  /** Concurrent requests share a read that started after they arrived: one round trip serves them all. */
  private readonly sharedPgRead = freshReads(() => this.readPg());

  constructor(private readonly db: Db) {}

  /** The read that every request reaching it in this turn of the event loop shares. */
  private turn: Promise<Row> | undefined;

  /** All three in one statement, as strings (PostgreSQL returns bigint as one). Every API request reads them. */
  async current(): Promise<Epochs> {
    const row: Row = this.db.isTransaction ? firstRow(await this.db.raw(READ)) : await this.sharedRead();
    if (!row) throw new Error('auth_epoch or data_epoch has no row: run the migrations');
    return { auth: String(row.auth), data: String(row.data), changes: String(row.changes ?? 0) };
  }

  /**
   * Made once the event loop has run every callback of this turn (setImmediate), so it starts after each
   * request that asked in the turn: concurrent requests share one statement and still never see a value
   * read before they asked. On PostgreSQL a read still under way then is waited out (fresh-reads.ts).
   */
  private sharedRead(): Promise<Row> {
    this.turn ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      this.turn = undefined;
      if (!isSqlite(this.db)) return this.sharedPgRead();
      // Straight on the idle connection (a prepared statement, a few µs), not through knex's pool; when a
      // transaction holds the one connection (or it is not opened yet), through knex, which waits for it.
      const conn = idleSqliteConnection(this.db);
      return conn ? this.readSqlite(conn) : this.db.raw(READ).then((result: Row[]) => firstRow(result));
    });
    return this.turn;
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

  /** PostgreSQL: on a pooled connection, named there (pg-statements.ts), without knex's query building per request. */
  private async readPg(): Promise<Row> {
    const client = this.db.client as PooledClient;
    const conn = await client.acquireConnection();
    const span = startQuerySpan('postgresql', READ);
    try {
      const row = (await conn.query({ text: READ })).rows[0];
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
