import type { Knex } from 'knex';
import { isSqlite } from '../dialect.js';

/** The channel every instance listens on: a statement that adds changes notifies it when it commits. */
export const CHANGES_CHANNEL = 'roster_changes';

/**
 * PostgreSQL: once per statement that adds changes, delivered at commit (never for a rolled-back one) and
 * folded into one per transaction. The notification carries nothing: listeners read the log, so a lost one
 * only delays. SQLite has one process per database file and no notifications: listeners poll.
 */
export async function up(knex: Knex): Promise<void> {
  if (isSqlite(knex)) return;
  await knex.raw(`CREATE FUNCTION changes_notify() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_notify('${CHANGES_CHANNEL}', ''); RETURN NULL; END $$`);
  await knex.raw(
    'CREATE TRIGGER changes_notify AFTER INSERT ON changes FOR EACH STATEMENT EXECUTE FUNCTION changes_notify()',
  );
}

export async function down(knex: Knex): Promise<void> {
  if (isSqlite(knex)) return;
  await knex.raw('DROP TRIGGER IF EXISTS changes_notify ON changes');
  await knex.raw('DROP FUNCTION IF EXISTS changes_notify()');
}
