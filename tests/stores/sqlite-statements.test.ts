import { createDb } from '../../src/stores/database.js';

// The embedded database keeps prepared statements across queries (whatever the suite's database is).
interface Connection {
  prepare(sql: string): unknown;
}

const db = createDb('sqlite::memory:');
afterAll(() => db.destroy());

test('the same SQL reuses its prepared statement; the cache is bounded', async () => {
  const conn = (await db.client.acquireConnection()) as Connection;
  try {
    const first = conn.prepare('select 1 as v');
    expect(conn.prepare('select 1 as v')).toBe(first);
    expect(conn.prepare('select 2 as v')).not.toBe(first);
    for (let i = 0; i < 200; i += 1) conn.prepare(`select ${i + 10} as v`);
    // Pushed out by 200 newer ones: prepared anew.
    expect(conn.prepare('select 1 as v')).not.toBe(first);
  } finally {
    await db.client.releaseConnection(conn);
  }
});

test('a reused statement answers each call with its own bindings', async () => {
  await db.schema.createTable('t', (t) => {
    t.integer('id').primary();
    t.string('name');
  });
  await db('t').insert([
    { id: 1, name: 'one' },
    { id: 2, name: 'two' },
  ]);
  const names = [];
  for (const id of [1, 2, 1, 3]) names.push((await db('t').where({ id }).first())?.name);
  expect(names).toEqual(['one', 'two', 'one', undefined]);
});
