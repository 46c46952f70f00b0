import type { Knex } from 'knex';
import { isSqlite } from '../dialect.js';

/**
 * A counter the database bumps, in the same transaction, whenever a write may end a bearer token:
 * an access token or grant changed or deleted, an app token deleted, a user or an app changed or
 * deleted. Cached bearer lookups are good only while it stands still; triggers make that hold for
 * every writer — any instance, the CLI, a future code path.
 */
const WATCHED: { table: string; events: ('UPDATE' | 'DELETE')[]; when?: string }[] = [
  { table: 'oidc_payloads', events: ['UPDATE', 'DELETE'], when: "model IN ('AccessToken', 'Grant')" },
  { table: 'app_tokens', events: ['DELETE'] },
  { table: 'users', events: ['UPDATE', 'DELETE'] },
  { table: 'client_apps', events: ['UPDATE', 'DELETE'] },
];

const triggerName = (table: string, event: string) => `${table}_${event.toLowerCase()}_auth_epoch`;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('auth_epoch', (t) => {
    t.integer('id').primary();
    t.bigInteger('value').notNullable();
  });
  await knex('auth_epoch').insert({ id: 1, value: 0 });
  const bump = 'UPDATE auth_epoch SET value = value + 1 WHERE id = 1';
  if (isSqlite(knex)) {
    for (const { table, events, when } of WATCHED) {
      for (const event of events) {
        await knex.raw(
          `CREATE TRIGGER ${triggerName(table, event)} AFTER ${event} ON ${table} FOR EACH ROW` +
            `${when ? ` WHEN OLD.${when}` : ''} BEGIN ${bump}; END`,
        );
      }
    }
    return;
  }
  // PostgreSQL: once per statement (a sweep deleting thousands of rows bumps once), rows checked in
  // the statement's transition table.
  for (const { table, events, when } of WATCHED) {
    await knex.raw(`
      CREATE FUNCTION ${table}_auth_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM old_rows${when ? ` WHERE ${when}` : ''}) THEN ${bump}; END IF;
        RETURN NULL;
      END $$`);
    // A trigger with a transition table fires on one event only.
    for (const event of events) {
      await knex.raw(
        `CREATE TRIGGER ${triggerName(table, event)} AFTER ${event} ON ${table} ` +
          `REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ${table}_auth_epoch()`,
      );
    }
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const { table, events } of WATCHED) {
    for (const event of events) {
      const on = isSqlite(knex) ? '' : ` ON ${table}`;
      await knex.raw(`DROP TRIGGER IF EXISTS ${triggerName(table, event)}${on}`);
    }
    if (!isSqlite(knex)) await knex.raw(`DROP FUNCTION IF EXISTS ${table}_auth_epoch()`);
  }
  await knex.schema.dropTableIfExists('auth_epoch');
}
