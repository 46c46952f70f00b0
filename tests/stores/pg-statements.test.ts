import { spawnSync } from 'node:child_process';
import { createDb, type Db } from '../../src/stores/database.js';
import { MAX_NAMED_STATEMENTS, statementName } from '../../src/stores/pg-statements.js';
import { distPath, useBuiltDist } from '../helpers/build.js';
import { freshDatabase } from '../helpers/harness.js';

// Statements run prepared, against the test run's database: on PostgreSQL named once per connection
// (stores/pg-statements.ts), on SQLite from the connection's statement cache. Either way an answer is the
// one an unprepared statement would give, a table changed by another connection included.
const pg = Boolean(process.env.TEST_DATABASE_URL);
useBuiltDist();
let database: { url: string; drop(): Promise<void> };
let db: Db;
let other: Db;

beforeAll(async () => {
  database = await freshDatabase();
  // One connection: every statement below meets what the one before it prepared.
  db = createDb(database.url, { poolMax: 1 });
  other = createDb(database.url, { poolMax: 1 });
  await db.schema.createTable('prepared_t', (t) => {
    t.integer('id').primary();
    t.string('name');
  });
  await db('prepared_t').insert([
    { id: 1, name: 'one' },
    { id: 2, name: 'two' },
  ]);
});
afterAll(async () => {
  await db?.destroy();
  await other?.destroy();
  await database?.drop();
});

const byId = (id: number) => db('prepared_t').where({ id }).first();
/** A name of Roster's: made of its text, so the same in every instance. */
const NAME = /^roster_[\w-]{32}(?:_\d+)?$/;

test('a statement run again answers with its own bindings each time', async () => {
  const names = [];
  for (const id of [1, 2, 1, 3]) names.push((await byId(id))?.name);
  expect(names).toEqual(['one', 'two', 'one', undefined]);
});

test('a prepared select * sees the columns another connection added, and goes on seeing them', async () => {
  expect(await db('prepared_t').select('*').where({ id: 1 })).toEqual([{ id: 1, name: 'one' }]);
  await other.schema.alterTable('prepared_t', (t) => t.string('colour').defaultTo('red'));
  for (let i = 0; i < 2; i += 1) {
    expect(await db('prepared_t').select('*').where({ id: 1 })).toEqual([{ id: 1, name: 'one', colour: 'red' }]);
  }
});

if (pg) {
  const prepared = async () =>
    (
      await db.raw<{ rows: { name: string; statement: string }[] }>(
        'SELECT name, statement FROM pg_prepared_statements',
      )
    ).rows;

  test('PostgreSQL prepares a statement once per connection and runs it again by name', async () => {
    const nameOf = (id: number) => db('prepared_t').select('name').where({ id }).first();
    for (const id of [1, 2, 1]) await nameOf(id);
    const text = nameOf(1).toSQL().toNative().sql;
    expect((await prepared()).filter((p) => p.statement === text)).toEqual([
      { name: statementName(text), statement: text },
    ]);
  });

  test('a named statement that failed (a constraint) runs again inside and after a rolled-back transaction', async () => {
    await expect(
      db.transaction(async (trx) => {
        await trx('prepared_t').insert({ id: 10, name: 'ten' });
        await trx('prepared_t').insert({ id: 10, name: 'ten again' });
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await byId(10)).toBeUndefined();
    await db('prepared_t').insert({ id: 10, name: 'ten' });
    expect((await byId(10))?.name).toBe('ten');
  });

  test('inside a transaction a stale prepared select * fails with its own error, then runs again after', async () => {
    const all = (q: typeof db) => q('prepared_t').select('*').where({ id: 2 });
    expect(await all(db)).toEqual([{ id: 2, name: 'two', colour: 'red' }]);
    const text = all(db).toSQL().toNative().sql;
    const before = statementName(text);
    await other.schema.alterTable('prepared_t', (t) => t.string('size').defaultTo('m'));
    // The error aborted the transaction: the retry's "current transaction is aborted" would hide why.
    await expect(db.transaction((trx) => all(trx))).rejects.toMatchObject({
      code: '0A000',
      message: expect.stringContaining('cached plan must not change result type'),
    });
    expect(await all(db)).toEqual([{ id: 2, name: 'two', colour: 'red', size: 'm' }]);
    // Prepared again under a name of its own: the stale plan stays behind the old one on other connections.
    expect(statementName(text)).toMatch(NAME);
    expect(statementName(text)).not.toBe(before);
  });

  test("a trigger's 0A000 refusal is the statement's answer, inside a transaction too, and keeps its name", async () => {
    await db.raw(`CREATE FUNCTION prepared_t_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION USING ERRCODE = 'feature_not_supported', MESSAGE = 'refused by its trigger', HINT = 'why'; END $$`);
    await db.raw(
      'CREATE TRIGGER prepared_t_refuse BEFORE DELETE ON prepared_t FOR EACH ROW EXECUTE FUNCTION prepared_t_refuse()',
    );
    const remove = (q: typeof db) => q('prepared_t').where({ id: 1 }).delete();
    const text = remove(db).toSQL().toNative().sql;
    await expect(remove(db)).rejects.toMatchObject({
      code: '0A000',
      message: expect.stringContaining('refused by its trigger'),
    });
    const name = statementName(text);
    expect(name).toMatch(NAME);
    // Run again unnamed, the statement would meet the transaction it aborted: "current transaction is aborted".
    await expect(db.transaction((trx) => remove(trx))).rejects.toMatchObject({
      code: '0A000',
      hint: 'why',
      message: expect.stringContaining('refused by its trigger'),
    });
    expect(statementName(text)).toBe(name);
    expect((await byId(1))?.name).toBe('one');
    await db.raw('DROP TRIGGER prepared_t_refuse ON prepared_t');
  });

  test('after the server connection lost its statements (a pooler resets it with DISCARD ALL), each answers and is prepared again', async () => {
    const nameOf = (id: number) => db('prepared_t').select('name').where({ id }).first();
    const text = nameOf(1).toSQL().toNative().sql;
    expect((await nameOf(2))?.name).toBe('two');
    await db.raw('DISCARD ALL');
    expect((await prepared()).filter((p) => p.statement === text)).toEqual([]);
    expect((await nameOf(2))?.name).toBe('two');
    expect((await nameOf(1))?.name).toBe('one');
    expect((await prepared()).filter((p) => p.statement === text)).toEqual([
      { name: statementName(text), statement: text },
    ]);
  });

  test('inside a transaction a statement the server connection lost fails with its own error, then runs again after', async () => {
    const nameOf = (q: typeof db, id: number) => q('prepared_t').select('name').where({ id }).first();
    expect((await nameOf(db, 1))?.name).toBe('one');
    await db.raw('DISCARD ALL');
    await expect(db.transaction((trx) => nameOf(trx, 1))).rejects.toMatchObject({ code: '26000' });
    expect((await nameOf(db, 1))?.name).toBe('one');
  });

  test('a statement the server connection has already under its name (another client prepared it there) runs', async () => {
    const fresh = createDb(database.url, { poolMax: 1 });
    try {
      const nameOf = (id: number) => fresh('prepared_t').select('name', 'id').where({ id }).first();
      const text = nameOf(1).toSQL().toNative().sql;
      const name = statementName(text)!;
      // What a pooler's server connection holds once another instance ran the statement through it.
      await fresh.raw(`PREPARE "${name}" AS ${text}`);
      expect(await nameOf(1)).toEqual({ name: 'one', id: 1 });
      expect(await nameOf(2)).toEqual({ name: 'two', id: 2 });
      // Still the one PREPARE made (its text starts with PREPARE): nothing was prepared beside it.
      const held = await fresh.raw<{ rows: { statement: string }[] }>(
        "SELECT statement FROM pg_prepared_statements WHERE statement LIKE '%' || ?",
        [text],
      );
      expect(held.rows).toEqual([{ statement: `PREPARE "${name}" AS ${text}` }]);
    } finally {
      await fresh.destroy();
    }
  });

  test('a statement sent without a callback (for a promise) is named and mended the same way', async () => {
    const conn = (await db.client.acquireConnection()) as {
      query(config: { text: string; values?: unknown[] }): Promise<{ rows: unknown[] }>;
    };
    try {
      const text = 'select name from prepared_t where id = $1';
      expect((await conn.query({ text, values: [1] })).rows).toEqual([{ name: 'one' }]);
      await conn.query({ text: 'DISCARD ALL' });
      expect((await conn.query({ text, values: [2] })).rows).toEqual([{ name: 'two' }]);
      const held = await conn.query({
        text: 'SELECT name FROM pg_prepared_statements WHERE statement = $1',
        values: [text],
      });
      expect(held.rows).toEqual([{ name: statementName(text) }]);
      await expect(conn.query({ text: 'select nothing_here from prepared_t' })).rejects.toMatchObject({
        code: '42703',
      });
    } finally {
      await db.client.releaseConnection(conn);
    }
  });

  test('DDL and a text of more than one statement run unnamed', async () => {
    expect(statementName('CREATE TABLE x (id int)')).toBeUndefined();
    expect(statementName('select 1; select 2')).toBeUndefined();
    const result = await db.raw('select 1 as a; select 2 as b');
    expect(Array.isArray(result) ? result.map((r: { rows: unknown[] }) => r.rows) : result).toEqual([
      [{ a: 1 }],
      [{ b: 2 }],
    ]);
    // The trailing semicolon of a single statement does not keep it from being named.
    expect(statementName('select 3 as c;')).toMatch(NAME);
  });
}

test('a statement has the same name in every process, whatever that process named before it', () => {
  const texts = ['select name from prepared_t where id = $1', 'select 1 as everywhere'];
  const script = `const { statementName } = await import(${JSON.stringify(distPath('stores/pg-statements.js'))});
    statementName('select 2 as only_there');
    console.log(JSON.stringify(${JSON.stringify(texts)}.reverse().map(statementName).reverse()));`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(child.stderr).toBe('');
  const there = JSON.parse(child.stdout) as string[];
  expect(there).toEqual(texts.map(statementName));
  expect(new Set(there).size).toBe(2);
  for (const name of there) expect(name).toMatch(NAME);
});

test('the names a process gives are bounded: past them a statement runs unnamed', async () => {
  for (let i = 0; i < MAX_NAMED_STATEMENTS; i += 1) statementName(`select ${i} as bounded`);
  expect(statementName('select 1 as one_more')).toBeUndefined();
  // Named earlier, still named; and an unnamed one answers as well.
  expect(statementName(`select 0 as bounded`)).toMatch(NAME);
  const result = await db.raw('select 7 as one_more_run');
  expect(pg ? result.rows : result).toEqual([{ one_more_run: 7 }]);
});
