import type { Knex } from 'knex';
import { isSqlite } from '../dialect.js';

/**
 * A counter the database bumps, in the same transaction, on every write to a table a GraphQL answer is
 * read from. A cached answer is served only while it stands still, so a write by any instance, the CLI
 * or the importer is seen by the next request everywhere; triggers make that hold for every writer.
 */
const WATCHED = ['users', 'events', 'event_organizers', 'registrations', 'client_apps'];
const EVENTS = ['INSERT', 'UPDATE', 'DELETE'] as const;
const BUMP = 'UPDATE data_epoch SET value = value + 1 WHERE id = 1';

const triggerName = (table: string, event: string) => `${table}_${event.toLowerCase()}_data_epoch`;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('data_epoch', (t) => {
    t.integer('id').primary();
    t.bigInteger('value').notNullable();
  });
  await knex('data_epoch').insert({ id: 1, value: 0 });
  if (isSqlite(knex)) {
    // SQLite has row triggers only; the bump is one in-page update per row written.
    for (const table of WATCHED) {
      for (const event of EVENTS) {
        await knex.raw(`CREATE TRIGGER ${triggerName(table, event)} AFTER ${event} ON ${table} BEGIN ${BUMP}; END`);
      }
    }
    return;
  }
  // PostgreSQL: once per statement, so a bulk INSERT … SELECT of a million rows bumps once.
  await knex.raw(`
    CREATE FUNCTION bump_data_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN ${BUMP}; RETURN NULL; END $$`);
  for (const table of WATCHED) {
    for (const event of EVENTS) {
      await knex.raw(
        `CREATE TRIGGER ${triggerName(table, event)} AFTER ${event} ON ${table} ` +
          `FOR EACH STATEMENT EXECUTE FUNCTION bump_data_epoch()`,
      );
    }
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of WATCHED) {
    for (const event of EVENTS) {
      const on = isSqlite(knex) ? '' : ` ON ${table}`;
      await knex.raw(`DROP TRIGGER IF EXISTS ${triggerName(table, event)}${on}`);
    }
  }
  if (!isSqlite(knex)) await knex.raw('DROP FUNCTION IF EXISTS bump_data_epoch()');
  await knex.schema.dropTableIfExists('data_epoch');
}
