import type { Knex } from 'knex';
import { isSqlite } from '../dialect.js';

/**
 * A change leaves the log only by pruning, which first moves `change_log_state.pruned_through` past it: a
 * feed reader whose cursor is before that point is told its changes expired. A hand
 * `DELETE FROM changes WHERE occurred_at < …` would instead leave a hole that readers skip without a word,
 * and an instance that had not read those changes would keep answers they touched. So a delete of a change
 * after `pruned_through` is refused, as is lowering `pruned_through` (the feed would resume into a hole).
 *
 * The one row of `auth_epoch`, `data_epoch` and `change_log_state` is read by every request or every feed
 * page: deleting it (or, on PostgreSQL, a TRUNCATE) is refused too.
 */
const UNPRUNED_MESSAGE =
  'DELETE FROM changes is refused for changes not yet pruned: feed readers would skip them without being told';
const UNPRUNED_HINT = 'set CHANGES_RETENTION_DAYS: an instance prunes the change log every 10 minutes';
const LOWER_MESSAGE =
  'change_log_state.pruned_through only grows: the change feed would resume into changes that are gone';
const ONE_ROW_TABLES = ['auth_epoch', 'data_epoch', 'change_log_state'];
const oneRowMessage = (statement: string, table: string) =>
  `${statement} ${table} is refused: every instance reads its one row`;

const UNPRUNED_GUARD = 'changes_unpruned_guard';
const LOWER_GUARD = 'change_log_state_lower_guard';
const deleteGuard = (table: string) => `${table}_delete_guard`;
const truncateGuard = (table: string) => `${table}_refuse_truncate`;

/** A text as an SQL string literal. */
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** A PostgreSQL trigger function that only refuses, with SQLSTATE 0A000 like the TRUNCATE refusals. */
const refusing = (name: string, message: string, hint?: string) => `
  CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    RAISE EXCEPTION USING ERRCODE = 'feature_not_supported', MESSAGE = ${literal(message)}${hint ? `, HINT = ${literal(hint)}` : ''};
  END $$`;

export async function up(knex: Knex): Promise<void> {
  if (isSqlite(knex)) {
    // SQLite runs a trigger's WHEN per row (a DELETE of the whole table too, when the table has triggers).
    await knex.raw(`CREATE TRIGGER ${UNPRUNED_GUARD} BEFORE DELETE ON changes
      WHEN OLD.position > (SELECT pruned_through FROM change_log_state WHERE id = 1)
      BEGIN SELECT RAISE(ABORT, ${literal(`${UNPRUNED_MESSAGE}; ${UNPRUNED_HINT}`)}); END`);
    await knex.raw(`CREATE TRIGGER ${LOWER_GUARD} BEFORE UPDATE OF pruned_through ON change_log_state
      WHEN NEW.pruned_through < OLD.pruned_through
      BEGIN SELECT RAISE(ABORT, ${literal(LOWER_MESSAGE)}); END`);
    for (const table of ONE_ROW_TABLES) {
      await knex.raw(`CREATE TRIGGER ${deleteGuard(table)} BEFORE DELETE ON ${table}
        BEGIN SELECT RAISE(ABORT, ${literal(oneRowMessage('DELETE FROM', table))}); END`);
    }
    return;
  }
  // One check per statement, over the rows it deleted: a prune of many changes is not slowed row by row.
  await knex.raw(`CREATE FUNCTION ${UNPRUNED_GUARD}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM gone WHERE position > (SELECT pruned_through FROM change_log_state WHERE id = 1)) THEN
        RAISE EXCEPTION USING ERRCODE = 'feature_not_supported', MESSAGE = ${literal(UNPRUNED_MESSAGE)},
          HINT = ${literal(UNPRUNED_HINT)};
      END IF;
      RETURN NULL;
    END $$`);
  await knex.raw(
    `CREATE TRIGGER ${UNPRUNED_GUARD} AFTER DELETE ON changes REFERENCING OLD TABLE AS gone ` +
      `FOR EACH STATEMENT EXECUTE FUNCTION ${UNPRUNED_GUARD}()`,
  );
  await knex.raw(refusing(LOWER_GUARD, LOWER_MESSAGE));
  await knex.raw(
    `CREATE TRIGGER ${LOWER_GUARD} BEFORE UPDATE OF pruned_through ON change_log_state FOR EACH ROW ` +
      `WHEN (NEW.pruned_through < OLD.pruned_through) EXECUTE FUNCTION ${LOWER_GUARD}()`,
  );
  for (const table of ONE_ROW_TABLES) {
    await knex.raw(refusing(deleteGuard(table), oneRowMessage('DELETE FROM', table)));
    await knex.raw(
      `CREATE TRIGGER ${deleteGuard(table)} BEFORE DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${deleteGuard(table)}()`,
    );
    await knex.raw(refusing(truncateGuard(table), oneRowMessage('TRUNCATE', table)));
    await knex.raw(
      `CREATE TRIGGER ${truncateGuard(table)} BEFORE TRUNCATE ON ${table} FOR EACH STATEMENT ` +
        `EXECUTE FUNCTION ${truncateGuard(table)}()`,
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  const on = (table: string) => (isSqlite(knex) ? '' : ` ON ${table}`);
  const guards: [string, string][] = [
    [UNPRUNED_GUARD, 'changes'],
    [LOWER_GUARD, 'change_log_state'],
    ...ONE_ROW_TABLES.map((table): [string, string] => [deleteGuard(table), table]),
    ...(isSqlite(knex) ? [] : ONE_ROW_TABLES.map((table): [string, string] => [truncateGuard(table), table])),
  ];
  for (const [trigger, table] of guards) {
    await knex.raw(`DROP TRIGGER IF EXISTS ${trigger}${on(table)}`);
    if (!isSqlite(knex)) await knex.raw(`DROP FUNCTION IF EXISTS ${trigger}()`);
  }
}
