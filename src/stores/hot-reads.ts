import type { Knex } from 'knex';
import { idleSqliteConnection, type Db } from './database.js';
import { isSqlite } from './dialect.js';
import type { PgQueryable } from './pg-statements.js';
import { endQuerySpan, startQuerySpan, type DbSystem } from './query-spans.js';

// The request path's reads: knex builds and compiles each one once per dialect, with stand-ins for its
// parameters; every later call binds its values to that SQL, straight on a connection (SQLite's idle one,
// a pooled PostgreSQL one), skipping knex's builder, compiler and runner on every request.

export type Bindable = string | number;

interface Compiled {
  /** With `?` placeholders (SQLite, and knex's raw) ... */
  sql: string;
  /** ... and with PostgreSQL's `$1`, in the same order. */
  native: string;
  /** Each binding of the SQL: the index of the caller's value, or a constant of the query. */
  bindings: ({ arg: number } | { value: unknown })[];
}

/** Numbers no caller binds (ids, sizes and limits are far smaller): each marks one parameter while knex builds. */
const STAND_IN = 8_000_000_000_000;
/** Reads compiled, by dialect and key; keys vary with list lengths, so the map is bounded... */
const MAX_COMPILED = 1000;
/** ...and a long list (a client's choice) is compiled for its call only, never kept. */
const MAX_KEPT_PARAMETERS = 64;
const compiledReads = new Map<string, Compiled>();

/** What better-sqlite3 cannot bind, as knex would send it there: booleans as 0 or 1, dates as milliseconds. */
const forSqlite = (value: unknown): unknown =>
  typeof value === 'boolean' ? Number(value) : value instanceof Date ? value.valueOf() : value;

function compile(
  key: string,
  arity: number,
  sqlite: boolean,
  build: (...params: number[]) => Knex.QueryBuilder,
): Compiled {
  const standIns = Array.from({ length: arity }, (_, i) => STAND_IN + i);
  const built = build(...standIns).toSQL();
  const { sql, bindings } = built;
  const seen = new Set<number>();
  const compiled = bindings.map((b) => {
    const arg = typeof b === 'number' ? b - STAND_IN : -1;
    if (arg >= 0 && arg < arity) {
      seen.add(arg);
      return { arg };
    }
    // A stand-in changed on its way (arithmetic, or made text) would bind the wrong value, or none.
    if (arg >= 0 || (typeof b === 'string' && b.includes(String(STAND_IN).slice(0, 12)))) {
      throw new Error(`hot read ${key}: a parameter was changed while the statement was built`);
    }
    return { value: sqlite ? forSqlite(b) : b };
  });
  if (seen.size !== arity) throw new Error(`hot read ${key}: ${arity - seen.size} of its parameters are not bound`);
  return {
    sql: sqlite ? opaqueParameters(key, sql, bindings.length) : sql,
    native: built.toNative().sql,
    bindings: compiled,
  };
}

/**
 * SQLite plans again, on every call, a statement whose plan looked at a bound value (an `=` before an
 * ORDER BY on the same index, a LIMIT): the page read was parsed and planned anew on most requests. Each
 * parameter written `+?` (the same value) is an expression the planner does not look into, so the plan
 * made once is kept.
 */
function opaqueParameters(key: string, sql: string, count: number): string {
  const parts = sql.split('?');
  if (parts.length - 1 !== count) throw new Error(`hot read ${key}: its SQL has a "?" that is not a parameter`);
  return parts.join('+?');
}

/**
 * Runs the read `key` names with `args` bound: `build` makes it with one stand-in per argument, in order,
 * the first time this dialect runs it (use each as given: no arithmetic, no text made of it). A key names
 * one shape of statement: what changes its SQL (a list's length, an optional condition) belongs in the key.
 */
export async function hotRead<Row>(
  db: Db,
  key: string,
  args: readonly Bindable[],
  build: (...params: number[]) => Knex.QueryBuilder,
): Promise<Row[]> {
  const sqlite = isSqlite(db);
  const cacheKey = `${sqlite ? 'sqlite' : 'pg'}\n${key}`;
  let read = compiledReads.get(cacheKey);
  if (!read) {
    read = compile(key, args.length, sqlite, build);
    if (args.length <= MAX_KEPT_PARAMETERS) {
      if (compiledReads.size >= MAX_COMPILED) compiledReads.clear();
      compiledReads.set(cacheKey, read);
    }
  }
  const values = read.bindings.map((b) => ('arg' in b ? args[b.arg] : b.value));
  if (sqlite) {
    const conn = idleSqliteConnection(db);
    if (conn) return announced(db, 'sqlite', read.sql, values, () => conn.prepare(read.sql).all(...values) as Row[]);
  } else if (!db.isTransaction) {
    return readPooled<Row>(db, read.native, values);
  }
  // A transaction open on SQLite's one connection, or a PostgreSQL transaction: through knex, as raw SQL.
  const result = (await db.raw(read.sql, values as Knex.RawBinding[])) as Row[] | { rows: Row[] };
  return Array.isArray(result) ? result : result.rows;
}

/**
 * Runs `run` outside knex, which would announce the statement to its listeners (debugging, the tests'
 * counts): said here, without knex's query id, so the tracing listener leaves it to the span made here.
 */
async function announced<T>(
  db: Db,
  system: DbSystem,
  sql: string,
  values: unknown[],
  run: () => T | Promise<T>,
): Promise<T> {
  if (db.listenerCount('query') > 0) db.emit('query', { method: 'select', sql, bindings: values });
  const span = startQuerySpan(system, sql);
  try {
    const result = await run();
    if (span) endQuerySpan(span);
    return result;
  } catch (err) {
    if (span) endQuerySpan(span, err);
    throw err;
  }
}

/** The part of knex's client a pooled read uses (a pg connection is node-postgres's Client). */
interface PooledClient {
  acquireConnection(): Promise<PgQueryable>;
  releaseConnection(conn: unknown): Promise<unknown>;
}

/** PostgreSQL: on a pooled connection, named there like every statement knex sends (pg-statements.ts). */
async function readPooled<Row>(db: Db, text: string, values: unknown[]): Promise<Row[]> {
  const client = db.client as PooledClient;
  const conn = await client.acquireConnection();
  try {
    return await announced(
      db,
      'postgresql',
      text,
      values,
      () =>
        new Promise<Row[]>((resolve, reject) =>
          conn.query({ text, values }, (err: Error | null, result?: { rows: Row[] }) =>
            err ? reject(err) : resolve(result!.rows),
          ),
        ),
    );
  } finally {
    await client.releaseConnection(conn);
  }
}
