import type { Knex } from 'knex';
import { isSqlite } from '../dialect.js';

/**
 * A change leaves the log only by pruning, which first moves `change_log_state.pruned_through` past it: a
 * feed reader whose cursor is before that point is told its changes expired. A hand
 * `DELETE FROM changes WHERE occurred_at < …` would instead leave a hole that readers skip without a word,
 * and an instance that had not read those changes would keep answers they touched. So a delete of a change
 * after `pruned_through` is refused (as is any, should that row be missing), and pruning moves the data
 * epoch in the database, whoever prunes.
 *
 * The one row of `auth_epoch`, `data_epoch` and `change_log_state` is read by every request or feed page,
 * and compared with what was read before: it cannot be deleted, added to, truncated, renumbered, or have a
 * counter lowered (an epoch seen before would replay answers from then).
 */
const UNPRUNED_MESSAGE =
  'DELETE FROM changes is refused for changes not yet pruned: feed readers would skip them without being told';
const UNPRUNED_HINT = 'set CHANGES_RETENTION_DAYS: an instance prunes the change log every 10 minutes';

/** Each one-row table and its counters, which only grow. */
const ONE_ROW: Record<string, string[]> = {
  auth_epoch: ['value'],
  data_epoch: ['value', 'changes_head'],
  change_log_state: ['pruned_through'],
};
const oneRowMessages = (table: string) => ({
  INSERT: `${table} has its one row already: every instance reads it`,
  DELETE: `DELETE FROM ${table} is refused: every instance reads its one row`,
  UPDATE: `${table} keeps its id, and its counters only grow: every instance compares them with what it read`,
  TRUNCATE: `TRUNCATE ${table} is refused: every instance reads its one row`,
});
/** The UPDATE refused: the row renumbered, or a counter lowered. */
const rewinds = (table: string) =>
  ['NEW.id <> OLD.id', ...ONE_ROW[table]!.map((c) => `NEW.${c} < OLD.${c}`)].join(' OR ');

const UNPRUNED_GUARD = 'changes_unpruned_guard';
const PRUNED_BUMP = 'change_log_pruned_data_epoch';
const ONE_ROW_GUARD = 'one_row_guard';
const guardName = (table: string, op: string) =>
  op === 'TRUNCATE' ? `${table}_refuse_truncate` : `${table}_${op.toLowerCase()}_guard`;

/** A text as an SQL string literal. */
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
/** Where the change log starts; 0 when its row is missing, so that a delete is refused rather than let through. */
const PRUNED_THROUGH = 'coalesce((SELECT pruned_through FROM change_log_state WHERE id = 1), 0)';
const BUMP = 'UPDATE data_epoch SET value = value + 1 WHERE id = 1';

async function upSqlite(knex: Knex): Promise<void> {
  // SQLite runs a trigger's WHEN per row (a DELETE of the whole table too, when the table has triggers).
  await knex.raw(`CREATE TRIGGER ${UNPRUNED_GUARD} BEFORE DELETE ON changes WHEN OLD.position > ${PRUNED_THROUGH}
    BEGIN SELECT RAISE(ABORT, ${literal(`${UNPRUNED_MESSAGE}; ${UNPRUNED_HINT}`)}); END`);
  // Once a prune, as its start moves (row by row on the changes would bump it once a change).
  await knex.raw(`CREATE TRIGGER ${PRUNED_BUMP} AFTER UPDATE OF pruned_through ON change_log_state
    WHEN NEW.pruned_through > OLD.pruned_through BEGIN ${BUMP}; END`);
  for (const table of Object.keys(ONE_ROW)) {
    const messages = oneRowMessages(table);
    // INSERT too: SQLite's REPLACE deletes the row without firing DELETE triggers, then inserts.
    for (const op of ['INSERT', 'DELETE'] as const) {
      await knex.raw(`CREATE TRIGGER ${guardName(table, op)} BEFORE ${op} ON ${table}
        BEGIN SELECT RAISE(ABORT, ${literal(messages[op])}); END`);
    }
    await knex.raw(`CREATE TRIGGER ${guardName(table, 'UPDATE')} BEFORE UPDATE ON ${table} WHEN ${rewinds(table)}
      BEGIN SELECT RAISE(ABORT, ${literal(messages.UPDATE)}); END`);
  }
}

async function upPostgres(knex: Knex): Promise<void> {
  // The function resolves table names by the migration's search path (the next migration puts pg_temp last).
  // One check per statement, over the rows it deleted: a prune of many changes is not slowed row by row,
  // and the data epoch moves once, after the delete, not while it runs.
  await knex.raw(`CREATE FUNCTION ${UNPRUNED_GUARD}() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM gone WHERE position > ${PRUNED_THROUGH}) THEN
        RAISE EXCEPTION USING ERRCODE = 'feature_not_supported', MESSAGE = ${literal(UNPRUNED_MESSAGE)},
          HINT = ${literal(UNPRUNED_HINT)};
      END IF;
      IF EXISTS (SELECT 1 FROM gone) THEN ${BUMP}; END IF;
      RETURN NULL;
    END $$`);
  await knex.raw(
    `CREATE TRIGGER ${UNPRUNED_GUARD} AFTER DELETE ON changes REFERENCING OLD TABLE AS gone ` +
      `FOR EACH STATEMENT EXECUTE FUNCTION ${UNPRUNED_GUARD}()`,
  );
  const cases = Object.keys(ONE_ROW).flatMap((table) =>
    Object.entries(oneRowMessages(table)).map(
      ([op, message]) => `WHEN TG_TABLE_NAME = ${literal(table)} AND TG_OP = ${literal(op)} THEN ${literal(message)}`,
    ),
  );
  await knex.raw(`CREATE FUNCTION ${ONE_ROW_GUARD}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION USING ERRCODE = 'feature_not_supported', MESSAGE = CASE ${cases.join(' ')} END;
    END $$`);
  for (const table of Object.keys(ONE_ROW)) {
    const guard = (op: string, timing: string) =>
      knex.raw(`CREATE TRIGGER ${guardName(table, op)} ${timing} EXECUTE FUNCTION ${ONE_ROW_GUARD}()`);
    await guard('INSERT', `BEFORE INSERT ON ${table} FOR EACH ROW`);
    await guard('DELETE', `BEFORE DELETE ON ${table} FOR EACH ROW`);
    await guard('UPDATE', `BEFORE UPDATE ON ${table} FOR EACH ROW WHEN (${rewinds(table)})`);
    await guard('TRUNCATE', `BEFORE TRUNCATE ON ${table} FOR EACH STATEMENT`);
  }
}

export async function up(knex: Knex): Promise<void> {
  await (isSqlite(knex) ? upSqlite(knex) : upPostgres(knex));
}

export async function down(knex: Knex): Promise<void> {
  const sqlite = isSqlite(knex);
  const triggers: [string, string][] = [
    [UNPRUNED_GUARD, 'changes'],
    ...(sqlite ? [[PRUNED_BUMP, 'change_log_state'] as [string, string]] : []),
    ...Object.keys(ONE_ROW).flatMap((table) =>
      ['INSERT', 'DELETE', 'UPDATE', ...(sqlite ? [] : ['TRUNCATE'])].map((op): [string, string] => [
        guardName(table, op),
        table,
      ]),
    ),
  ];
  for (const [trigger, table] of triggers)
    await knex.raw(`DROP TRIGGER IF EXISTS ${trigger}${sqlite ? '' : ` ON ${table}`}`);
  if (sqlite) return;
  await knex.raw(`DROP FUNCTION IF EXISTS ${UNPRUNED_GUARD}()`);
  await knex.raw(`DROP FUNCTION IF EXISTS ${ONE_ROW_GUARD}()`);
}
