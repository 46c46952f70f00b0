// PostgreSQL parses and plans every statement sent unnamed; a named one is prepared once per connection,
// then only bound and run (pg remembers which names each connection has prepared).

/** Distinct statements named per process; past that a new one runs unnamed, as any statement would. */
export const MAX_NAMED_STATEMENTS = 200;

/** One DML statement: DDL is left unnamed, and more than one statement cannot be prepared. */
const NAMEABLE = /^\s*(?:select|insert|update|delete|with)\b/i;
const MORE_THAN_ONE = /;\s*\S/;
/** What a statement sent into a transaction that an error has aborted gets. */
const IN_FAILED_TRANSACTION = '25P02';
/**
 * What PostgreSQL answers when a table's columns changed under a prepared `select *`: 0A000 from the plan
 * cache's check. Roster's own triggers refuse writes with 0A000 too; theirs is the statement's answer.
 */
const staleResultType = (err: (Error & { code?: string; routine?: string }) | null) =>
  err?.code === '0A000' && err.routine === 'RevalidateCachedQuery';

const names = new Map<string, string>();
let made = 0;

/** The name this process runs `text` under (exported for the tests), or undefined when it runs unnamed. */
export function statementName(text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED_STATEMENTS && NAMEABLE.test(text) && !MORE_THAN_ONE.test(text)) {
    name = `roster_${(made += 1)}`;
    names.set(text, name);
  }
  return name;
}

interface QueryConfig {
  text?: unknown;
  name?: unknown;
}
type Callback = (err: (Error & { code?: string; routine?: string }) | null, result?: unknown) => void;

export interface PgQueryable {
  query(config: unknown, ...rest: unknown[]): unknown;
}

/**
 * Sends knex's statements on `conn` named (knex passes a config object and a callback). A statement
 * prepared before another process changed its table's columns fails with 0A000 on every connection that
 * prepared it: it gets a new name, and this run goes again unnamed (inside a transaction, which that error
 * has aborted, the caller gets that error).
 */
export function namePreparedStatements(conn: PgQueryable): void {
  const query = conn.query.bind(conn);
  conn.query = (config: unknown, ...rest: unknown[]) => {
    const { text, name: given } = (config ?? {}) as QueryConfig;
    const callback = rest[0];
    if (typeof text !== 'string' || given !== undefined || typeof callback !== 'function')
      return query(config, ...rest);
    const name = statementName(text);
    if (name === undefined) return query(config, ...rest);
    return query({ ...(config as object), name }, ((err, result) => {
      if (!staleResultType(err)) return (callback as Callback)(err, result);
      if (names.get(text) === name) names.delete(text);
      // Inside a transaction the stale plan has aborted it: its error, not the retry's 25P02, is the answer.
      return query(config, ((again, retried) =>
        (callback as Callback)(again?.code === IN_FAILED_TRANSACTION ? err : again, retried)) satisfies Callback);
    }) satisfies Callback);
  };
}
