import type { Knex } from 'knex';
import { isSqlite } from '../dialect.js';

/**
 * Personal access tokens: a user's own bearer tokens, kept as SHA-256 hashes. Deleting one (a revocation)
 * moves the auth epoch, so bearer lookups cached by any instance end with it; marking its last use does not.
 */
const BUMP = 'UPDATE auth_epoch SET value = value + 1 WHERE id = 1';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('personal_tokens', (t) => {
    t.increments('id').primary();
    t.integer('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('name', 100).notNullable();
    t.string('token_hash', 64).notNullable().unique();
    // Space-separated, as OAuth writes scopes.
    t.string('scopes', 100).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('last_used_at').nullable();
    t.index(['user_id', 'id']);
  });
  if (isSqlite(knex)) {
    await knex.raw(
      `CREATE TRIGGER personal_tokens_delete_auth_epoch AFTER DELETE ON personal_tokens FOR EACH ROW BEGIN ${BUMP}; END`,
    );
    return;
  }
  await knex.raw(`
    CREATE FUNCTION personal_tokens_auth_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM old_rows) THEN ${BUMP}; END IF;
      RETURN NULL;
    END $$`);
  await knex.raw(
    'CREATE TRIGGER personal_tokens_delete_auth_epoch AFTER DELETE ON personal_tokens ' +
      'REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION personal_tokens_auth_epoch()',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('personal_tokens');
  if (!isSqlite(knex)) await knex.raw('DROP FUNCTION IF EXISTS personal_tokens_auth_epoch()');
}
