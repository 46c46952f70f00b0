import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { isSqlite } from './dialect.js';
import { migrationSource } from './migrations/index.js';
import { namePreparedStatements } from './pg-statements.js';
import { traceQueries } from './query-spans.js';

import { reasonOf, DatabaseUnavailable } from './database-errors.js';

export type Db = Knex;

interface SqliteConnection {
  pragma(s: string): unknown;
  prepare(sql: string): unknown;
}

/** The one better-sqlite3 connection behind a SQLite Db, for a store's synchronous hot-path read. */
export interface SqliteHandle {
  readonly inTransaction: boolean;
  prepare(sql: string): { get(...params: unknown[]): unknown; all(...params: unknown[]): unknown[] };
}

const sqliteHandles = new WeakMap<Db, { conn?: SqliteHandle }>();

/**
 * The connection of a SQLite Db when a statement may run on it right now, outside knex's pool: only
 * when no transaction is open on it (one may be, between the awaits of a knex transaction).
 */
export function idleSqliteConnection(db: Db): SqliteHandle | undefined {
  const conn = sqliteHandles.get(db)?.conn;
  return conn && !conn.inTransaction ? conn : undefined;
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

interface PgConnection {
  query(config: unknown, ...rest: unknown[]): unknown;
}

const NUL = '\u0000';

/**
 * PostgreSQL text cannot hold U+0000: a query binding it fails. No stored text contains one, so it is sent
 * as U+FFFD (what a lossy decoder makes of a bad byte): a lookup by such input finds nothing, as on SQLite.
 */
function replaceNulInBindings(conn: PgConnection): void {
  const query = conn.query.bind(conn);
  conn.query = (config: unknown, ...rest: unknown[]) => {
    const values = (config as { values?: unknown[] } | null)?.values;
    if (Array.isArray(values) && values.some((v) => typeof v === 'string' && v.includes(NUL))) {
      const clean = values.map((v) => (typeof v === 'string' ? v.replaceAll(NUL, '\ufffd') : v));
      return query({ ...(config as object), values: clean }, ...rest);
    }
    return query(config, ...rest);
  };
}

/**
 * Creates the directory of a SQLite file and its missing parents. Not mkdirSync's `recursive`: where mkdir
 * answers ENOENT under an existing parent (in /proc) it retries forever, and the start hangs.
 */
function makeDirectory(dir: string, parentMade = false): void {
  try {
    mkdirSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // There already (another instance starting may just have made it): fine when it is a directory.
    if (code === 'EEXIST') {
      if (statSync(dir).isDirectory()) return;
      throw new Error(`ENOTDIR: not a directory, mkdir '${dir}'`);
    }
    const parent = dirname(dir);
    if (code !== 'ENOENT' || parentMade || parent === dir) throw err;
    makeDirectory(parent);
    makeDirectory(dir, true);
  }
}

/**
 * knex writes its own warnings with console.log, on stdout (which carries only JSON log lines), stacks
 * included. A failed connection ("Acquire connection error") also fails the query that wanted it, and its
 * caller reports that; any other warning goes to stderr as one line.
 */
const KNEX_LOG = (() => {
  const line = (message: unknown) => {
    const text = message instanceof Error ? message.message : String(message);
    if (text.startsWith('Acquire connection error')) return;
    process.stderr.write(`knex: ${text.split('\n')[0]}\n`);
  };
  return { warn: line, error: line, deprecate: line, debug: line };
})();

export interface DbOptions {
  poolMax?: number;
  /** Make a span of each statement (tracing is on): without it no listener is attached at all. */
  traced?: boolean;
}

/** Opens the database named by DATABASE_URL: `sqlite:<path>` or `postgres://...`. */
export function createDb(databaseUrl: string, options: DbOptions = {}): Db {
  if (databaseUrl.startsWith('sqlite:')) {
    const filename = databaseUrl.slice('sqlite:'.length) || ':memory:';
    if (filename !== ':memory:') {
      const dir = dirname(filename);
      try {
        makeDirectory(dir);
      } catch (err) {
        throw new DatabaseUnavailable(
          `the SQLite database ${filename} cannot be opened (cannot create ${dir}: ${reasonOf(err)})`,
        );
      }
    }
    const handle: { conn?: SqliteHandle } = {};
    const db = knexFactory({
      client: 'better-sqlite3',
      connection: { filename },
      useNullAsDefault: true,
      log: KNEX_LOG,
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
          handle.conn = conn as unknown as SqliteHandle;
          done(null, conn);
        },
      },
      migrations: { migrationSource },
    });
    sqliteHandles.set(db, handle);
    if (options.traced) traceQueries(db, 'sqlite');
    return db;
  }
  const db = knexFactory({
    client: 'pg',
    connection: databaseUrl,
    log: KNEX_LOG,
    pool: {
      min: 0,
      max: options.poolMax ?? 10,
      afterCreate(conn: PgConnection, done: (err: Error | null, conn: unknown) => void) {
        replaceNulInBindings(conn);
        namePreparedStatements(conn);
        done(null, conn);
      },
    },
    migrations: { migrationSource },
  });
  if (options.traced) traceQueries(db, 'postgresql');
  return db;
}

// knex's bookkeeping tables, as knex itself creates them (lib/migrations/migrate/table-creator.js).
const BOOKKEEPING: [string, (t: Knex.CreateTableBuilder) => void][] = [
  [
    'knex_migrations',
    (t) => {
      t.increments();
      t.string('name');
      t.integer('batch');
      t.timestamp('migration_time');
    },
  ],
  [
    'knex_migrations_lock',
    (t) => {
      t.increments('index').primary();
      t.integer('is_locked');
    },
  ],
];
const ONE_LOCK_ROW =
  'insert into knex_migrations_lock (is_locked) select 0 where not exists (select 1 from knex_migrations_lock)';
/** The PostgreSQL advisory lock instances take to create the bookkeeping tables one at a time (any constant). */
const BOOKKEEPING_LOCK = 7_301_117;

interface SqliteSync {
  prepare(sql: string): { get(...bindings: unknown[]): unknown; run(...bindings: unknown[]): unknown };
  transaction(fn: () => void): { immediate(): void };
}

/**
 * knex creates its bookkeeping tables check-then-create, so instances migrating an empty database together
 * collide ("already exists"), or leave two lock rows that no later migration can take (knex#3538).
 * Created here first, under a database-wide lock; knex's own lock then serializes the migrations.
 */
async function createBookkeeping(db: Db): Promise<void> {
  if (isSqlite(db)) {
    const conn = (await db.client.acquireConnection()) as SqliteSync;
    try {
      // BEGIN IMMEDIATE takes SQLite's one write lock up front (waiting busy_timeout for another instance).
      conn
        .transaction(() => {
          for (const [name, build] of BOOKKEEPING) {
            if (conn.prepare("select 1 from sqlite_master where type = 'table' and name = ?").get(name)) continue;
            for (const { sql, bindings } of db.schema.createTable(name, build).toSQL()) conn.prepare(sql).run(bindings);
          }
          conn.prepare(ONE_LOCK_ROW).run();
        })
        .immediate();
    } finally {
      await db.client.releaseConnection(conn);
    }
    return;
  }
  await db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(?)', [BOOKKEEPING_LOCK]);
    for (const [name, build] of BOOKKEEPING) {
      if (!(await trx.schema.hasTable(name))) await trx.schema.createTable(name, build);
    }
    await trx.raw(ONE_LOCK_ROW);
  });
}

/** Applies pending migrations; returns the names applied. Safe with other instances migrating at once. */
export async function migrate(db: Db): Promise<string[]> {
  await createBookkeeping(db);
  // In one transaction knex's lock waits for another instance's migrations, then finds them done.
  const [, applied] = (await db.migrate.latest()) as [number, string[]];
  return applied;
}

/**
 * Runs `fn` in a transaction holding the named lock, so instances doing the same at once take turns.
 * The lock is a row: a second insert of it waits on PostgreSQL until the holder commits (the row gone by
 * then), and on SQLite the insert takes the one write lock. A crash rolls the row back with the rest.
 */
export async function withLock<T>(db: Db, name: string, fn: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  const row = { name: `lock:${name}` };
  return db.transaction(async (trx) => {
    await trx('service_secrets').insert({ ...row, value: '', created_at: Date.now() });
    const result = await fn(trx);
    await trx('service_secrets').where(row).delete();
    return result;
  });
}
