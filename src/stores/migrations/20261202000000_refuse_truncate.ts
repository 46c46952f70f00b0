import type { Knex } from 'knex';
import { isSqlite } from '../dialect.js';

/**
 * PostgreSQL's TRUNCATE fires no row or DELETE trigger: a hand `TRUNCATE registrations` would record no
 * change, move neither epoch, and leave every instance replaying answers (and accepting cached tokens) that
 * the database no longer holds. So it is refused on every table those triggers watch, naming the DELETE
 * that does the same with them; and on the change log itself, whose changes an instance may not have read
 * yet (the instances prune it, after CHANGES_RETENTION_DAYS). SQLite has no TRUNCATE, and skips its
 * whole-table shortcut on a table with triggers: a `DELETE FROM t` there runs them row by row.
 */
const REFUSED = [
  'users',
  'events',
  'event_organizers',
  'registrations',
  'client_apps',
  'oidc_payloads',
  'app_tokens',
  'personal_tokens',
  'changes',
];

const triggerName = (table: string) => `${table}_refuse_truncate`;

export async function up(knex: Knex): Promise<void> {
  if (isSqlite(knex)) return;
  await knex.raw(`
    CREATE FUNCTION refuse_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_TABLE_NAME = 'changes' THEN
        RAISE EXCEPTION USING
          ERRCODE = 'feature_not_supported',
          MESSAGE = 'TRUNCATE changes is refused: instances that have not read its changes yet would keep stale answers',
          HINT = 'the instances prune the change log themselves, after CHANGES_RETENTION_DAYS';
      END IF;
      RAISE EXCEPTION USING
        ERRCODE = 'feature_not_supported',
        MESSAGE = format('TRUNCATE %I is refused: it would skip the change log and the epochs every instance reads', TG_TABLE_NAME),
        HINT = format('DELETE FROM %I removes the same rows and records it', TG_TABLE_NAME);
    END $$`);
  for (const table of REFUSED) {
    await knex.raw(
      `CREATE TRIGGER ${triggerName(table)} BEFORE TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate()`,
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  if (isSqlite(knex)) return;
  for (const table of REFUSED) await knex.raw(`DROP TRIGGER IF EXISTS ${triggerName(table)} ON ${table}`);
  await knex.raw('DROP FUNCTION IF EXISTS refuse_truncate()');
}
