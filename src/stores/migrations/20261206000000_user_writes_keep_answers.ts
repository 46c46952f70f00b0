import type { Knex } from 'knex';
import { isSqlite } from '../dialect.js';
import { pinSearchPaths } from './20261205010000_functions_ignore_temporary_tables.js';

/**
 * An update of a user moves the data epoch (which ends every replayed answer and every row kept at it, at
 * every instance) only when it changes a column an answer shows. A password set or reset, an email verified,
 * a picture or time zone changed shows in no GraphQL answer, and must not empty every instance's caches: a
 * user resetting their password could otherwise do it at will. Inserts and deletes of users still move it.
 */

/** Every column of `users` an answer shows: a registrant's, or the viewer's own (a new one joins here by a migration). */
export const ANSWER_USER_COLUMNS = ['id', 'uid', 'name', 'email', 'activation_state'];

const TRIGGER = 'users_update_data_epoch';
const BUMP = 'UPDATE data_epoch SET value = value + 1 WHERE id = 1';

const sqliteDiffers = ANSWER_USER_COLUMNS.map((c) => `OLD.${c} IS NOT NEW.${c}`).join(' OR ');
// A row whose id changed has no partner in `o`: it counts as changed.
const pgDiffers = ['o.id IS NULL', ...ANSWER_USER_COLUMNS.map((c) => `o.${c} IS DISTINCT FROM n.${c}`)].join(' OR ');

export async function up(knex: Knex): Promise<void> {
  if (isSqlite(knex)) {
    await knex.raw(`DROP TRIGGER IF EXISTS ${TRIGGER}`);
    await knex.raw(`CREATE TRIGGER ${TRIGGER} AFTER UPDATE ON users WHEN ${sqliteDiffers} BEGIN ${BUMP}; END`);
    return;
  }
  await knex.raw(`DROP TRIGGER IF EXISTS ${TRIGGER} ON users`);
  // Once per statement, over its rows: a bulk update of many users bumps at most once.
  await knex.raw(`CREATE FUNCTION ${TRIGGER}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM n LEFT JOIN o ON o.id = n.id WHERE ${pgDiffers}) THEN ${BUMP}; END IF;
      RETURN NULL;
    END $$`);
  await pinSearchPaths(knex, [TRIGGER]);
  await knex.raw(
    `CREATE TRIGGER ${TRIGGER} AFTER UPDATE ON users REFERENCING OLD TABLE AS o NEW TABLE AS n ` +
      `FOR EACH STATEMENT EXECUTE FUNCTION ${TRIGGER}()`,
  );
}

export async function down(knex: Knex): Promise<void> {
  if (isSqlite(knex)) {
    await knex.raw(`DROP TRIGGER IF EXISTS ${TRIGGER}`);
    await knex.raw(`CREATE TRIGGER ${TRIGGER} AFTER UPDATE ON users BEGIN ${BUMP}; END`);
    return;
  }
  await knex.raw(`DROP TRIGGER IF EXISTS ${TRIGGER} ON users`);
  await knex.raw(`DROP FUNCTION IF EXISTS ${TRIGGER}()`);
  await knex.raw(
    `CREATE TRIGGER ${TRIGGER} AFTER UPDATE ON users FOR EACH STATEMENT EXECUTE FUNCTION bump_data_epoch()`,
  );
}
