import { createCounter } from '../../src/stores/counter-store.js';
import { useMigratedDatabase } from '../helpers/harness.js';

// addMany: what a flush of many owners' points writes, in one statement, counted as consume() counts.
const database = useMigratedDatabase();
const LIMITS = { points: 100, duration: 3600 };
let prefix = 0;
const counter = () => createCounter(database.db, `t${(prefix += 1)}`, LIMITS);

/** The statements knex sends while `fn` runs. */
async function statementsOf(fn: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const listen = (query: { sql: string }) => seen.push(query.sql);
  database.db.on('query', listen);
  try {
    await fn();
  } finally {
    database.db.off('query', listen);
  }
  return seen;
}

test('adds to many keys in one statement and answers what each holds, with its window', async () => {
  const c = counter();
  await c.consume('a', 3);
  const points = new Map(Array.from({ length: 60 }, (_, i) => [`k${i}`, i + 1]));
  points.set('a', 4);
  let added = new Map<string, { consumedPoints: number; msBeforeNext: number; remainingPoints: number }>();
  const statements = await statementsOf(async () => (added = await c.addMany(points)));
  expect(statements).toHaveLength(1);
  expect(added.size).toBe(61);
  expect(added.get('a')!.consumedPoints).toBe(7);
  expect(added.get('k59')!.consumedPoints).toBe(60);
  expect(added.get('k0')!.remainingPoints).toBe(99);
  for (const res of added.values()) {
    expect(res.msBeforeNext).toBeGreaterThan(3590_000);
    expect(res.msBeforeNext).toBeLessThanOrEqual(3600_000);
  }
  // What consume() then sees: the same rows, counted on.
  expect((await c.consume('a', 1)).consumedPoints).toBe(8);
  expect((await c.get('k59'))!.consumedPoints).toBe(60);
});

test('a key whose window ran out starts a new one; other counters keep their own keys', async () => {
  const c = counter();
  const other = counter();
  await c.consume('old', 50);
  await other.consume('old', 5);
  await database
    .db('rate_limits')
    .where({ key: `t${prefix - 1}:old` })
    .update({ expire: Date.now() - 1 });
  const added = await c.addMany(new Map([['old', 2]]));
  expect(added.get('old')!.consumedPoints).toBe(2);
  expect(added.get('old')!.msBeforeNext).toBeGreaterThan(3590_000);
  expect((await other.get('old'))!.consumedPoints).toBe(5);
});

test('a key without a window keeps counting, as consume() does', async () => {
  const c = counter();
  await c.consume('forever', 3);
  await database
    .db('rate_limits')
    .where({ key: `t${prefix}:forever` })
    .update({ expire: null });
  expect((await c.addMany(new Map([['forever', 2]]))).get('forever')!.consumedPoints).toBe(5);
});

test('never refuses: points past the limit are written and reported', async () => {
  const c = counter();
  const added = await c.addMany(new Map([['over', 150]]));
  expect(added.get('over')!.consumedPoints).toBe(150);
  expect(added.get('over')!.remainingPoints).toBe(0);
  await expect(c.consume('over', 1)).rejects.toMatchObject({ consumedPoints: 151 });
});

test('keys travel as data: quotes, control characters and non-Latin text round-trip', async () => {
  const c = counter();
  const keys = [`it's "x"`, 'tab\there', 'new\nline', '\u0001ctl', 'ключ', '[]{},:\\', ''];
  const added = await c.addMany(new Map(keys.map((k) => [k, 1])));
  expect([...added.keys()].sort()).toEqual([...keys].sort());
  for (const key of keys) expect((await c.get(key))!.consumedPoints).toBe(1);
});

test('nothing to add sends nothing', async () => {
  const c = counter();
  expect(await statementsOf(async () => expect((await c.addMany(new Map())).size).toBe(0))).toEqual([]);
});
