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

test('inside a transaction it reads through the transaction, its own writes included', async () => {
  await database.db
    .transaction(async (trx) => {
      await trx('hot_t').insert({ id: 100, kind: 'z', name: 'uncommitted' });
      const rows = await hotRead<Row>(trx, 'test.byKindInTrx', ['z'], (k) =>
        trx('hot_t').where('kind', k).select('name'),
      );
      expect(rows.map((r) => r.name)).toEqual(['uncommitted']);
      await trx.rollback();
    })
    .catch(() => {});
  // Rolled back: gone, and the root database reads again as before.
  expect(await byKind('z', 0, 10)).toEqual([]);
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

test('a failing statement rejects, and the next call still works', async () => {
  const broken = () =>
    hotRead<Row>(database.db, 'test.broken', [1], (p) => database.db('no_such_table').where('id', p));
  await expect(broken()).rejects.toThrow(/no_such_table/);
  expect((await byKind('a', 0, 1)).map((r) => Number(r.id))).toEqual([1]);
});
