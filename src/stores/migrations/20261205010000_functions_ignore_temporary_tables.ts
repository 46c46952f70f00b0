import type { Knex } from 'knex';
import { isSqlite } from '../dialect.js';

/**
 * PostgreSQL looks a table name up in the session's temporary schema first unless `pg_temp` is named in the
 * search path. A session that made `CREATE TEMP TABLE data_epoch (…)` would have its own writes bump that
 * table instead of the one every instance reads (stale answers replayed everywhere), and a temporary
 * `change_log_state` would let `DELETE FROM changes` through its guard. Each trigger function now looks in
 * its own schema, then in `pg_temp`, last. SQLite resolves a trigger's tables in the trigger's own schema,
 * never in `temp`: nothing to do there.
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

/** PostgreSQL: each of these trigger functions (no arguments) looks in its own schema, then in `pg_temp`, last. */
export async function pinSearchPaths(knex: Knex, functions: readonly string[]): Promise<void> {
  // Each function's own schema, where the same migrations made the tables it writes (not the session's
  // current_schema(), which a schema named after the role, made since, would change).
  const { rows } = await knex.raw<{ rows: { statement: string | null }[] }>(
    `SELECT format('ALTER FUNCTION %s SET search_path = %I, pg_temp', p.oid::regprocedure, n.nspname) AS statement
       FROM unnest(string_to_array(?, ',')) AS f(name)
       LEFT JOIN pg_proc p ON p.oid = to_regprocedure(f.name || '()')
       LEFT JOIN pg_namespace n ON n.oid = p.pronamespace`,
    [functions.join(',')],
  );
  const statements = rows.map((r) => r.statement).filter((s): s is string => s !== null);
  if (statements.length !== functions.length) throw new Error('a trigger function of the migrations is missing');
  for (const statement of statements) await knex.raw(statement);
}

export async function up(knex: Knex): Promise<void> {
  if (!isSqlite(knex)) await pinSearchPaths(knex, FUNCTIONS);
}

export async function down(knex: Knex): Promise<void> {
  if (isSqlite(knex)) return;
  for (const name of FUNCTIONS) await knex.raw('ALTER FUNCTION ??() RESET search_path', [name]);
  // As the migration that made it did: the search path of the session that runs this.
  await knex.raw('ALTER FUNCTION changes_unpruned_guard() SET search_path FROM CURRENT');
}
