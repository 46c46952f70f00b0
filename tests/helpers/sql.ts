import type { Db } from '../../src/stores/database.js';

interface Seen {
  sql: string;
  __knexTxId?: string;
}

/** The webhook worker's polling (every second, whatever the request): its statements and their transactions. */
const isWorker = (q: Seen) => /\bwebhook(s|_deliveries)\b/.test(q.sql) && !/^\s*(insert|update|delete)\b/i.test(q.sql);
/** The rate limiter's flush of every owner's granted points (every 100 ms, whatever the request). */
const isFlush = (q: Seen) => /^\s*insert into rate_limits\b/i.test(q.sql);

/**
 * The SQL text of every statement `db` runs while `fn` runs, and what `fn` returned; the webhook worker's
 * polls and the rate limiter's flushes, which run on their own timers, are left out.
 */
export async function sqlDuring<T>(db: Db, fn: () => Promise<T>): Promise<{ result: T; sql: string[] }> {
  const seen: Seen[] = [];
  const listener = (query: Seen) => seen.push(query);
  db.on('query', listener);
  try {
    const result = await fn();
    const workerTx = new Set(seen.filter(isWorker).map((q) => q.__knexTxId ?? ''));
    const sql = seen
      .filter((q) => !isWorker(q) && !isFlush(q) && !(q.__knexTxId && workerTx.has(q.__knexTxId)))
      .map((q) => q.sql);
    return { result, sql };
  } finally {
    db.off('query', listener);
  }
}

/** What any write does to cached GraphQL answers: they are computed again on the next request. */
export async function forgetCachedAnswers(db: Db): Promise<void> {
  await db('data_epoch').where({ id: 1 }).increment('value', 1);
}
