import type { Knex } from 'knex';
import { isSqlite } from '../dialect.js';

/**
 * Adding or removing a registration no longer moves the data epoch: the change log records it (in the same
 * transaction, in commit order), and each instance's replay cache drops only the answers that read that
 * event's or that user's registrations. An update of a registration still moves the epoch.
 */
const EVENTS = ['INSERT', 'DELETE'] as const;
const triggerName = (event: string) => `registrations_${event.toLowerCase()}_data_epoch`;
const BUMP = 'UPDATE data_epoch SET value = value + 1 WHERE id = 1';

export async function up(knex: Knex): Promise<void> {
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
}
