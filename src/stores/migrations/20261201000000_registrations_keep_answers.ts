import type { Knex } from 'knex';
import { isSqlite } from '../dialect.js';

/**
 * Adding or removing a registration no longer moves the data epoch: the change log records it (in the same
 * transaction, in commit order), and each instance's replay cache drops only the answers that read that
 * event's or that user's registrations. An update of a registration still moves the epoch.
 *
 * The log's newest position is kept beside the data epoch (`data_epoch.changes_head`), so the one statement
 * every request runs reads it without reading the log itself. On PostgreSQL the log's triggers hold that row's
 * lock already (see the change_log migration): setting it waits on nothing more.
 */
const EVENTS = ['INSERT', 'DELETE'] as const;
const triggerName = (event: string) => `registrations_${event.toLowerCase()}_data_epoch`;
const BUMP = 'UPDATE data_epoch SET value = value + 1 WHERE id = 1';
const HEAD_TRIGGER = 'changes_insert_head';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('data_epoch', (t) => {
    t.bigInteger('changes_head').notNullable().defaultTo(0);
  });
  await knex.raw(`UPDATE data_epoch SET changes_head = coalesce((SELECT max(position) FROM changes),
    (SELECT pruned_through FROM change_log_state WHERE id = 1), 0) WHERE id = 1`);
  if (isSqlite(knex)) {
    await knex.raw(`CREATE TRIGGER ${HEAD_TRIGGER} AFTER INSERT ON changes BEGIN
      UPDATE data_epoch SET changes_head = max(changes_head, NEW.position) WHERE id = 1; END`);
  } else {
    await knex.raw(`CREATE FUNCTION ${HEAD_TRIGGER}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN UPDATE data_epoch SET changes_head = greatest(changes_head, (SELECT max(position) FROM n)) WHERE id = 1;
      RETURN NULL; END $$`);
    await knex.raw(
      `CREATE TRIGGER ${HEAD_TRIGGER} AFTER INSERT ON changes REFERENCING NEW TABLE AS n ` +
        `FOR EACH STATEMENT EXECUTE FUNCTION ${HEAD_TRIGGER}()`,
    );
  }
  for (const event of EVENTS) {
    await knex.raw(`DROP TRIGGER IF EXISTS ${triggerName(event)}${isSqlite(knex) ? '' : ' ON registrations'}`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const event of EVENTS) {
    await knex.raw(
      isSqlite(knex)
        ? `CREATE TRIGGER ${triggerName(event)} AFTER ${event} ON registrations BEGIN ${BUMP}; END`
        : `CREATE TRIGGER ${triggerName(event)} AFTER ${event} ON registrations FOR EACH STATEMENT EXECUTE FUNCTION bump_data_epoch()`,
    );
  }
  await knex.raw(`DROP TRIGGER IF EXISTS ${HEAD_TRIGGER}${isSqlite(knex) ? '' : ' ON changes'}`);
  if (!isSqlite(knex)) await knex.raw(`DROP FUNCTION IF EXISTS ${HEAD_TRIGGER}()`);
  await knex.schema.alterTable('data_epoch', (t) => {
    t.dropColumn('changes_head');
  });
}
