import type { Knex } from 'knex';
import { isSqlite } from '../dialect.js';

/**
 * An app's own tokens (the client_credentials grant, oidc-provider's `ClientCredentials`) end bearer lookups
 * cached by every instance too: revoking or deleting one moves the auth epoch, as a user's access token does.
 */
const BUMP = 'UPDATE auth_epoch SET value = value + 1 WHERE id = 1';
const EVENTS = ['UPDATE', 'DELETE'] as const;
const triggerName = (event: string) => `oidc_payloads_${event.toLowerCase()}_auth_epoch`;

async function watch(knex: Knex, models: string[]): Promise<void> {
  const when = `model IN (${models.map((m) => `'${m}'`).join(', ')})`;
  if (isSqlite(knex)) {
    for (const event of EVENTS) {
      await knex.raw(`DROP TRIGGER IF EXISTS ${triggerName(event)}`);
      await knex.raw(
        `CREATE TRIGGER ${triggerName(event)} AFTER ${event} ON oidc_payloads FOR EACH ROW WHEN OLD.${when} BEGIN ${BUMP}; END`,
      );
    }
    return;
  }
  // The statement triggers stay; the function they run reads the transition table with the new list.
  await knex.raw(`
    CREATE OR REPLACE FUNCTION oidc_payloads_auth_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM old_rows WHERE ${when}) THEN ${BUMP}; END IF;
      RETURN NULL;
    END $$`);
}

export async function up(knex: Knex): Promise<void> {
  await watch(knex, ['AccessToken', 'Grant', 'ClientCredentials']);
  // An app's live tokens are counted at every grant, and ended by model and app at a new secret.
  await knex.schema.alterTable('oidc_payloads', (t) => t.index(['model', 'client_id', 'expires_at']));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('oidc_payloads', (t) => t.dropIndex(['model', 'client_id', 'expires_at']));
  await watch(knex, ['AccessToken', 'Grant']);
}
