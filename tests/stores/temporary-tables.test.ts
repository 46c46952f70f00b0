import * as migration from '../../src/stores/migrations/20261205010000_functions_ignore_temporary_tables.js';
import { createStores, type Stores } from '../../src/stores/stores.js';
import { useMigratedDatabase } from '../helpers/harness.js';

// A session's temporary table named like one of Roster's must not take the place of the real one in the
// triggers: the epochs every instance reads and the change log's guard look only at the real tables.

const database = useMigratedDatabase();
const pg = () => database.url.startsWith('postgres');
let stores: Stores;
beforeAll(() => {
  stores = createStores(database.db);
});

/** The session's own table (dropped at commit on PostgreSQL, before it on SQLite, whose DDL is transactional). */
const temporary = (name: string, columns: string) =>
  `CREATE TEMPORARY TABLE ${name} (${columns})${pg() ? ' ON COMMIT DROP' : ''}`;

const dataEpoch = async () => Number((await database.db('data_epoch').where({ id: 1 }).first('value'))!.value);

test("a write moves the real data epoch, not a session's temporary data_epoch", async () => {
  const org = await stores.users.create({ name: 'Shadowed Epoch' });
  const event = await stores.events.create({ slug: 'shadowed-epoch', name: 'Before', organizerIds: [org.id] });
  const before = await dataEpoch();
  await database.db.transaction(async (trx) => {
    await trx.raw(temporary('data_epoch', 'id integer, value bigint, changes_head bigint'));
    await trx.raw('INSERT INTO data_epoch VALUES (1, 0, 0)');
    await trx('events').where({ id: event.id }).update({ name: 'After' });
    if (!pg()) await trx.raw('DROP TABLE temp.data_epoch');
  });
  expect(await dataEpoch()).toBeGreaterThan(before);
});

test('a temporary change_log_state does not let DELETE FROM changes through', async () => {
  const org = await stores.users.create({ name: 'Shadowed State' });
  await stores.events.create({ slug: 'shadowed-state', name: 'Shadowed State', organizerIds: [org.id] });
  const kept = await stores.changes.after(0, 10_000);
  expect(kept.length).toBeGreaterThan(0);
  const shadowedDelete = database.db.transaction(async (trx) => {
    await trx.raw(temporary('change_log_state', 'id integer, changes_head bigint, pruned_through bigint'));
    await trx.raw('INSERT INTO change_log_state VALUES (1, 0, 9000000000000)');
    await trx.raw('DELETE FROM changes');
  });
  await expect(shadowedDelete).rejects.toThrow(/DELETE FROM changes is refused for changes not yet pruned/);
  expect(await stores.changes.after(0, 10_000)).toEqual(kept);
});

test('every trigger function looks in its own schema, then in pg_temp last (PostgreSQL; SQLite has none)', async () => {
  if (!pg()) {
    // SQLite's triggers belong to the schema of their table, and look only there: none is in temp.
    const main = await database.db.raw<{ name: string }[]>("SELECT name FROM sqlite_master WHERE type = 'trigger'");
    const temp = await database.db.raw<{ name: string }[]>(
      "SELECT name FROM sqlite_temp_master WHERE type = 'trigger'",
    );
    expect(main.length).toBeGreaterThan(20);
    expect(temp).toEqual([]);
    return;
  }
  const schema = (await database.db.raw<{ rows: { s: string }[] }>('SELECT current_schema() AS s')).rows[0]!.s;
  const functions = async () =>
    (
      await database.db.raw<{ rows: { name: string; config: string | null; expected: string }[] }>(
        `SELECT p.proname AS name, array_to_string(p.proconfig, ';') AS config,
                'search_path=' || quote_ident(n.nspname) || ', pg_temp' AS expected
           FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = ?`,
        [schema],
      )
    ).rows;
  const rows = await functions();
  expect(rows.map((r) => r.name)).toEqual(expect.arrayContaining(migration.FUNCTIONS));
  // A function added later without the setting fails here, not in a session with a temporary table.
  for (const r of rows) expect({ name: r.name, config: r.config }).toEqual({ name: r.name, config: r.expected });

  // Migrated again once a schema named after the role exists (the default search path's first): each function
  // still looks in its own schema, not in the session's current one.
  const role = (await database.db.raw<{ rows: { r: string }[] }>('SELECT current_user AS r')).rows[0]!.r;
  await database.db.raw('CREATE SCHEMA ??', [role]);
  try {
    await migration.down(database.db);
    await migration.up(database.db);
    for (const r of await functions()) {
      expect({ name: r.name, config: r.config }).toEqual({ name: r.name, config: r.expected });
    }
  } finally {
    await database.db.raw('DROP SCHEMA ??', [role]);
  }
});
