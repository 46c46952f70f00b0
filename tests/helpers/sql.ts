import type { Db } from '../../src/stores/database.js';

/** The SQL text of every statement `db` runs while `fn` runs, and what `fn` returned. */
export async function sqlDuring<T>(db: Db, fn: () => Promise<T>): Promise<{ result: T; sql: string[] }> {
  const sql: string[] = [];
  const listener = (query: { sql: string }) => sql.push(query.sql);
  db.on('query', listener);
  try {
    return { result: await fn(), sql };
  } finally {
    db.off('query', listener);
  }
}

/** What any write does to cached GraphQL answers: they are computed again on the next request. */
export async function forgetCachedAnswers(db: Db): Promise<void> {
  await db('data_epoch').where({ id: 1 }).increment('value', 1);
}
