import type { Knex } from 'knex';
import { isSqlite } from '../dialect.js';

/**
 * Registering or editing an app changes no answer about events, so it no longer moves the data epoch (any
 * user could otherwise empty every replay cache at will). The one answer that shows an app, the viewer's
 * own, is keyed by the app's name, which a bearer lookup reads afresh after the auth epoch moves.
 */
const EVENTS = ['INSERT', 'UPDATE', 'DELETE'] as const;
const triggerName = (event: string) => `client_apps_${event.toLowerCase()}_data_epoch`;
const BUMP = 'UPDATE data_epoch SET value = value + 1 WHERE id = 1';

export async function up(knex: Knex): Promise<void> {
  for (const event of EVENTS) {
    await knex.raw(`DROP TRIGGER IF EXISTS ${triggerName(event)}${isSqlite(knex) ? '' : ' ON client_apps'}`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const event of EVENTS) {
    await knex.raw(
      isSqlite(knex)
        ? `CREATE TRIGGER ${triggerName(event)} AFTER ${event} ON client_apps BEGIN ${BUMP}; END`
        : `CREATE TRIGGER ${triggerName(event)} AFTER ${event} ON client_apps FOR EACH STATEMENT EXECUTE FUNCTION bump_data_epoch()`,
    );
  }
}
