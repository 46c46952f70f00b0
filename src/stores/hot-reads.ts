import type { Knex } from 'knex';
import { idleSqliteConnection, type Db } from './database.js';
import { isSqlite } from './dialect.js';
import { endQuerySpan, startQuerySpan } from './query-spans.js';

// The request path's reads: knex builds and compiles each one once per dialect, with stand-ins for its
// parameters; every later call binds its values to that SQL (on SQLite straight on the idle connection),
// skipping knex's builder, compiler and (there) its pool on every request.

export type Bindable = string | number;

interface Compiled {
  sql: string;
  /** Each binding of the SQL: the index of the caller's value, or a constant of the query. */
  bindings: ({ arg: number } | { value: unknown })[];
}

/** Numbers no caller binds (ids, sizes and limits are far smaller): each marks one parameter while knex builds. */
const STAND_IN = 8_000_000_000_000;
/** Reads compiled, by dialect and key; keys vary with list lengths, so the map is bounded. */
const MAX_COMPILED = 1000;
const compiledReads = new Map<string, Compiled>();

function compile(key: string, arity: number, build: (...params: number[]) => Knex.QueryBuilder): Compiled {
  const standIns = Array.from({ length: arity }, (_, i) => STAND_IN + i);
  const { sql, bindings } = build(...standIns).toSQL();
  return {
    sql,
    bindings: bindings.map((b) => {
      const arg = typeof b === 'number' ? b - STAND_IN : -1;
      return arg >= 0 && arg < arity ? { arg } : { value: b };
    }),
  };
}

/**
 * Runs the read `key` names with `args` bound: `build` makes it with one stand-in per argument, in order,
 * the first time this dialect runs it. A key names one shape of statement: what changes its SQL (a list's
 * length, an optional condition) belongs in the key.
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
    read = compile(key, args.length, build);
    if (compiledReads.size >= MAX_COMPILED) compiledReads.clear();
    compiledReads.set(cacheKey, read);
  }
  const values = read.bindings.map((b) => ('arg' in b ? args[b.arg] : b.value));
  const conn = sqlite ? idleSqliteConnection(db) : undefined;
  if (!conn) {
    // A transaction open on SQLite's one connection, or PostgreSQL: through knex, as raw SQL.
    const result = (await db.raw(read.sql, values as Knex.RawBinding[])) as Row[] | { rows: Row[] };
    return Array.isArray(result) ? result : result.rows;
  }
  // Outside knex, which would announce the statement to its listeners (debugging, the tests' counts): said
  // here, without knex's query id, so the tracing listener leaves it to the span made here.
  if (db.listenerCount('query') > 0) db.emit('query', { method: 'select', sql: read.sql, bindings: values });
  const span = startQuerySpan('sqlite', read.sql);
  try {
    const rows = conn.prepare(read.sql).all(...values) as Row[];
    if (span) endQuerySpan(span);
    return rows;
  } catch (err) {
    if (span) endQuerySpan(span, err);
    throw err;
  }
}
