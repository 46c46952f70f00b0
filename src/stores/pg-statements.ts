import { createHash } from 'node:crypto';

// PostgreSQL parses and plans every statement sent unnamed; a named one is prepared once per connection,
// then only bound and run (pg remembers which names each connection has prepared).

/** Distinct statements named per process; past that a new one runs unnamed, as any statement would. */
export const MAX_NAMED_STATEMENTS = 200;

/** One DML statement: DDL is left unnamed, and more than one statement cannot be prepared. */
const NAMEABLE = /^\s*(?:select|insert|update|delete|with)\b/i;
const MORE_THAN_ONE = /;\s*\S/;
/** What a statement sent into a transaction that an error has aborted gets. */
const IN_FAILED_TRANSACTION = '25P02';
/** The server connection has no statement of that name (a pooler's reset, or another server behind it). */
const NOT_PREPARED = '26000';
/** The server connection has it already (prepared there through a pooler by another client). */
const ALREADY_PREPARED = '42P05';
/**
 * What PostgreSQL answers when a table's columns changed under a prepared `select *`: 0A000 from the plan
 * cache's check. Roster's own triggers refuse writes with 0A000 too; theirs is the statement's answer.
 */
const staleResultType = (err: (Error & { code?: string; routine?: string }) | null) =>
  err?.code === '0A000' && err.routine === 'RevalidateCachedQuery';

/**
 * A name made of the text itself (and how often it was prepared anew after a stale plan): the same
 * statement has the same name in every instance, and a name means one text only. Behind a pooler that
 * lets clients share server connections, a name met there is this very statement, never another's.
 */
const nameFor = (text: string, generation: number): string =>
  `roster_${createHash('sha256').update(text).digest('base64url').slice(0, 32)}${generation ? `_${generation}` : ''}`;

const names = new Map<string, { name: string; generation: number }>();

/** The name this process runs `text` under (exported for the tests), or undefined when it runs unnamed. */
export function statementName(text: string): string | undefined {
  let entry = names.get(text);
  if (entry === undefined && names.size < MAX_NAMED_STATEMENTS && NAMEABLE.test(text) && !MORE_THAN_ONE.test(text)) {
    entry = { name: nameFor(text, 0), generation: 0 };
    names.set(text, entry);
  }
  return entry?.name;
}

interface QueryConfig {
  text?: unknown;
  name?: unknown;
}
type Callback = (err: (Error & { code?: string; routine?: string }) | null, result?: unknown) => void;

export interface PgQueryable {
  query(config: unknown, ...rest: unknown[]): unknown;
}

/** pg's record of the statements it has prepared on a connection (by name): it sends Parse only for others. */
const preparedOn = (conn: PgQueryable): Record<string, string> | undefined =>
  (conn as { connection?: { parsedStatements?: Record<string, string> } }).connection?.parsedStatements;

/**
 * Sends knex's statements (and the stores' own reads) on `conn` named. When the server connection and
 * pg's record of it disagree, the record is mended and the statement runs again by name, prepared anew
 * where the connection lacks it (26000: a pooler's `DISCARD ALL`, or another server connection behind it)
 * or only bound where it has it already (42P05; by its name, the same text); a second disagreement runs it
 * unnamed. A statement prepared before another process changed its table's columns fails with 0A000 on
 * every connection that prepared it: it gets a new name, and runs again unnamed. Inside a transaction,
 * which any of these errors has aborted, the caller gets that error.
 */
export function namePreparedStatements(conn: PgQueryable): void {
  const query = conn.query.bind(conn);
  conn.query = (config: unknown, ...rest: unknown[]) => {
    const { text, name: given, submit } = (config ?? {}) as QueryConfig & { submit?: unknown };
    const callback = rest[0];
    const promised = rest.length === 0 && submit === undefined;
    if (typeof text !== 'string' || given !== undefined || (typeof callback !== 'function' && !promised))
      return query(config, ...rest);
    if (statementName(text) === undefined) return query(config, ...rest);
    const run = (done: Callback, again = false) => {
      const name = statementName(text)!;
      query({ ...(config as object), name }, ((err, result) => {
        const fix = err ? mend(text, name, err) : undefined;
        if (!fix) return done(err, result);
        if (fix === 'by name' && !again) return run(inTransaction(err!, done), true);
        return query(config, inTransaction(err!, done));
      }) satisfies Callback);
    };
    if (!promised) return run(callback as Callback);
    return new Promise((resolve, reject) => run((err, result) => (err ? reject(err) : resolve(result))));
  };

  /** Inside a transaction `err` has aborted it: its error, not the next run's 25P02, is the answer. */
  const inTransaction =
    (err: Error, done: Callback): Callback =>
    (again, result) =>
      done(again?.code === IN_FAILED_TRANSACTION ? err : again, result);

  /** How to run again after `err`, once what is known is mended; undefined when `err` is the answer. */
  function mend(text: string, name: string, err: Error & { code?: string; routine?: string }) {
    if (staleResultType(err)) {
      const entry = names.get(text);
      if (entry?.name === name) {
        entry.generation += 1;
        entry.name = nameFor(text, entry.generation);
      }
      return 'unnamed';
    }
    const prepared = preparedOn(conn);
    if (err.code === NOT_PREPARED && prepared?.[name] !== undefined) {
      delete prepared[name];
      return 'by name';
    }
    if (err.code === ALREADY_PREPARED && prepared) {
      prepared[name] = text;
      return 'by name';
    }
    return undefined;
  }
}
