import type { Knex } from 'knex';
import { isSqlite } from '../dialect.js';

/**
 * PostgreSQL looks a table name up in the session's temporary schema first unless `pg_temp` is named in the
 * search path. A session that made `CREATE TEMP TABLE data_epoch (…)` would have its own writes bump that
 * table instead of the one every instance reads (stale answers replayed everywhere), and a temporary
 * `change_log_state` would let `DELETE FROM changes` through its guard. Each trigger function now looks in
 * the schema the migrations ran in, then in `pg_temp`, last. SQLite resolves a trigger's tables in the
 * trigger's own schema, never in `temp`: nothing to do there.
 */
export const FUNCTIONS = [
  'app_tokens_auth_epoch',
  'bump_data_epoch',
  'changes_event_created',
  'changes_event_deleted',
  'changes_event_updated',
  'changes_insert_head',
  'changes_notify',
  'changes_registrant_updated',
  'changes_registration_created',
  'changes_registration_deleted',
  'changes_unpruned_guard',
  'client_apps_auth_epoch',
  'oidc_payloads_auth_epoch',
  'one_row_guard',
  'personal_tokens_auth_epoch',
  'refuse_truncate',
  'users_auth_epoch',
  'webhooks_queue',
];

export async function up(knex: Knex): Promise<void> {
  if (isSqlite(knex)) return;
  const { rows } = await knex.raw<{ rows: { schema: string }[] }>('SELECT current_schema() AS schema');
  for (const name of FUNCTIONS) {
    await knex.raw('ALTER FUNCTION ??() SET search_path = ??, pg_temp', [name, rows[0]!.schema]);
  }
}

export async function down(knex: Knex): Promise<void> {
  if (isSqlite(knex)) return;
  for (const name of FUNCTIONS) await knex.raw('ALTER FUNCTION ??() RESET search_path', [name]);
  // As the migration that made it left it.
  await knex.raw('ALTER FUNCTION changes_unpruned_guard() SET search_path FROM CURRENT');
}
