import type { Knex } from 'knex';
import { createDb } from '../../src/stores/database.js';
import { isSqlite } from '../../src/stores/dialect.js';
import { hotRead } from '../../src/stores/hot-reads.js';
import { useMigratedDatabase } from '../helpers/harness.js';

// The request path's reads, compiled once by knex: the same rows knex answers, on either database.
const database = useMigratedDatabase();

beforeAll(async () => {
  await database.db.schema.createTable('hot_t', (t) => {
    t.integer('id').primary();
    t.string('kind');
    t.string('name');
  });
  await database
    .db('hot_t')
    .insert(Array.from({ length: 30 }, (_, i) => ({ id: i + 1, kind: i % 3 ? 'b' : 'a', name: `n${i + 1}` })));
});

type Row = { id: number; kind: string; name: string };
const byKind = (kind: string, afterId: number, limit: number) =>
  hotRead<Row>(database.db, 'test.byKind', [kind, afterId, limit], (k, after, max) =>
    database
      .db('hot_t')
      .where('kind', k)
      .andWhere('id', '>', after)
      .orderBy('id')
      .limit(max)
      .select('id', 'kind', 'name'),
  );

test('answers as knex does, each call with its own values', async () => {
  for (const [kind, after, limit] of [
    ['a', 0, 5],
    ['b', 10, 3],
    ['a', 25, 10],
    ['c', 0, 5],
  ] as const) {
    const expected = await database
      .db('hot_t')
      .where('kind', kind)
      .andWhere('id', '>', after)
      .orderBy('id')
      .limit(limit);
    expect((await byKind(kind, after, limit)).map((r) => ({ ...r, id: Number(r.id) }))).toEqual(
      expected.map((r: Row) => ({ ...r, id: Number(r.id) })),
    );
  }
});

test("the query's own constants stay bound as written", async () => {
  const named = (name: string) =>
    hotRead<Row>(database.db, 'test.constant', [name], (n) =>
      database.db('hot_t').where('kind', 'a').andWhere('name', n).select('id'),
    );
  expect((await named('n1')).map((r) => Number(r.id))).toEqual([1]);
  // n2 exists, but of kind b: the constant 'a' still filters it out.
  expect(await named('n2')).toEqual([]);
});

test('each list length is its own statement', async () => {
  const ids = (list: number[]) =>
    hotRead<Row>(database.db, `test.in ${list.length}`, list, (...p) =>
      database.db('hot_t').whereIn('id', p).orderBy('id').select('id'),
    );
  expect((await ids([3])).map((r) => Number(r.id))).toEqual([3]);
  expect((await ids([4, 2, 9])).map((r) => Number(r.id))).toEqual([2, 4, 9]);
  expect((await ids([5])).map((r) => Number(r.id))).toEqual([5]);
});

/** Runs `fn` in a transaction that is then rolled back; what `fn` returned. */
async function rolledBack<T>(fn: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  const trx = await database.db.transaction();
  try {
    return await fn(trx);
  } finally {
    await trx.rollback();
  }
}

test('inside a transaction it reads through the transaction, its own writes included', async () => {
  const rows = await rolledBack(async (trx) => {
    await trx('hot_t').insert({ id: 100, kind: 'z', name: 'uncommitted' });
    return hotRead<Row>(trx, 'test.byKindInTrx', ['z'], (k) => trx('hot_t').where('kind', k).select('name'));
  });
  expect(rows.map((r) => r.name)).toEqual(['uncommitted']);
  // Rolled back: gone, and the root database reads again as before.
  expect(await byKind('z', 0, 10)).toEqual([]);
});

test('a read outside a transaction never sees its uncommitted rows', async () => {
  let outside: Promise<Row[]> | undefined;
  await rolledBack(async (trx) => {
    await trx('hot_t').insert({ id: 101, kind: 'y', name: 'uncommitted' });
    // Started while the transaction is open (on SQLite it holds the one connection): it waits, or reads the
    // committed state, but never this transaction's row.
    outside = byKind('y', 0, 10);
    await new Promise((resolve) => setTimeout(resolve, 20));
  });
  expect(await outside).toEqual([]);
});

test('a connection is given back when its statement fails', async () => {
  const one = createDb(database.url, { poolMax: 1 });
  try {
    const read = (table: string) =>
      hotRead<Row>(one, `test.release ${table}`, [1], (p) => one(table).where('id', p).select('id'));
    for (let i = 0; i < 3; i += 1) await expect(read('no_such_table')).rejects.toThrow(/no_such_table/);
    expect((await read('hot_t')).map((r) => Number(r.id))).toEqual([1]);
  } finally {
    await one.destroy();
  }
});

test('a parameter changed while the statement is built is refused, never bound wrongly', async () => {
  const built = (key: string, build: (p: number) => Knex.QueryBuilder) => hotRead<Row>(database.db, key, [5], build);
  await expect(built('test.arithmetic', (p) => database.db('hot_t').where('id', p + 1))).rejects.toThrow(
    /parameter was changed/,
  );
  await expect(built('test.text', (p) => database.db('hot_t').where('name', 'like', `${p}%`))).rejects.toThrow(
    /parameter was changed/,
  );
  await expect(built('test.unused', () => database.db('hot_t').where('id', 1))).rejects.toThrow(/not bound/);
});

test('a long list (kept for its call only) answers as a short one does', async () => {
  const ids = Array.from({ length: 200 }, (_, i) => i + 1);
  const rows = await hotRead<Row>(database.db, `test.in ${ids.length}`, ids, (...p) =>
    database.db('hot_t').whereIn('id', p).orderBy('id').select('id'),
  );
  expect(rows.map((r) => Number(r.id))).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
});

test('announces each statement to knex query listeners, once', async () => {
  const seen: string[] = [];
  const listen = (q: { sql: string }) => seen.push(q.sql);
  database.db.on('query', listen);
  try {
    await byKind('a', 0, 2);
  } finally {
    database.db.off('query', listen);
  }
  expect(seen).toHaveLength(1);
  expect(seen[0]).toMatch(/hot_t/);
});

test('on SQLite each parameter is sent as an expression, so a new value bound is not a new plan', async () => {
  const seen: string[] = [];
  const listen = (q: { sql: string }) => seen.push(q.sql);
  database.db.on('query', listen);
  try {
    await byKind('b', 3, 4);
  } finally {
    database.db.off('query', listen);
  }
  if (isSqlite(database.db)) {
    expect(seen[0]!.match(/\+\?/g)).toHaveLength(3);
    expect(seen[0]!.replace(/\+\?/g, '')).not.toContain('?');
  } else {
    expect(seen[0]).not.toMatch(/\+\$/);
  }
  // The same rows as the statement knex sends as written.
  const expected = await database.db('hot_t').where('kind', 'b').andWhere('id', '>', 3).orderBy('id').limit(4);
  expect((await byKind('b', 3, 4)).map((r) => Number(r.id))).toEqual(expected.map((r: Row) => Number(r.id)));
});

test('a failing statement rejects, and the next call still works', async () => {
  const broken = () =>
    hotRead<Row>(database.db, 'test.broken', [1], (p) => database.db('no_such_table').where('id', p));
  await expect(broken()).rejects.toThrow(/no_such_table/);
  expect((await byKind('a', 0, 1)).map((r) => Number(r.id))).toEqual([1]);
});
