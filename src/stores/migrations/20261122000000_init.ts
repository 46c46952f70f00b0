import type { Knex } from 'knex';

// Times are epoch milliseconds in BIGINT columns: the same on SQLite and PostgreSQL.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users', (t) => {
    t.increments('id').primary();
    t.string('uid', 64).notNullable().unique();
    t.string('email', 320).nullable();
    // Lower-cased copy of email: case-insensitive uniqueness on both databases.
    t.string('email_normalized', 320).nullable().unique();
    t.boolean('email_verified').notNullable().defaultTo(false);
    t.string('name', 500).notNullable();
    t.string('picture', 2000).nullable();
    t.string('zoneinfo', 100).nullable();
    t.string('password_hash', 500).nullable();
    t.string('activation_state', 20).notNullable().defaultTo('active');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
  });

  await knex.schema.createTable('events', (t) => {
    t.increments('id').primary();
    t.string('slug', 200).notNullable().unique();
    t.string('name', 500).notNullable();
    t.bigInteger('starts_at').nullable();
    t.bigInteger('ends_at').nullable();
    t.string('time_zone', 100).nullable();
    t.string('visibility', 10).notNullable().defaultTo('public');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
  });

  await knex.schema.createTable('event_organizers', (t) => {
    t.integer('event_id').notNullable().references('events.id').onDelete('CASCADE');
    t.integer('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.primary(['event_id', 'user_id']);
    t.index(['user_id']);
  });

  await knex.schema.createTable('registrations', (t) => {
    t.increments('id').primary();
    t.integer('event_id').notNullable().references('events.id').onDelete('CASCADE');
    t.integer('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.bigInteger('created_at').notNullable();
    // Also the keyset index: (event_id, user_id) is unique; pages walk (event_id, id).
    t.unique(['event_id', 'user_id']);
    t.index(['event_id', 'id']);
    t.index(['user_id']);
  });

  await knex.schema.createTable('client_apps', (t) => {
    t.increments('id').primary();
    t.string('client_id', 64).notNullable().unique();
    t.integer('owner_id').notNullable().references('users.id').onDelete('CASCADE');
    t.string('name', 200).notNullable();
    t.text('redirect_uris').notNullable(); // JSON array
    t.string('client_secret_hash', 128).nullable(); // null: a public client (PKCE, no secret)
    t.text('grant_types').notNullable(); // JSON array
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['owner_id']);
  });

  await knex.schema.createTable('app_tokens', (t) => {
    t.increments('id').primary();
    t.integer('app_id').notNullable().references('client_apps.id').onDelete('CASCADE');
    t.string('token_hash', 128).notNullable().unique();
    t.bigInteger('created_at').notNullable();
    t.index(['app_id']);
  });

  // oidc-provider's storage: every model in one table, keyed by a hash of its id.
  await knex.schema.createTable('oidc_payloads', (t) => {
    t.string('model', 64).notNullable();
    t.string('id', 128).notNullable();
    t.text('payload').notNullable();
    t.string('grant_id', 128).nullable();
    t.string('uid', 128).nullable();
    t.string('user_code', 128).nullable();
    t.bigInteger('expires_at').nullable();
    t.bigInteger('consumed_at').nullable();
    t.primary(['model', 'id']);
    t.index(['grant_id']);
    t.index(['uid']);
    t.index(['user_code']);
    t.index(['expires_at']);
  });

  await knex.schema.createTable('signing_keys', (t) => {
    t.increments('id').primary();
    t.string('kid', 64).notNullable().unique();
    t.text('jwk').notNullable(); // private JWK, JSON
    t.bigInteger('created_at').notNullable();
  });

  // Named service secrets: cookie keys, the pairwise-subject salt.
  await knex.schema.createTable('service_secrets', (t) => {
    t.string('name', 64).primary();
    t.text('value').notNullable();
    t.bigInteger('created_at').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'service_secrets',
    'signing_keys',
    'oidc_payloads',
    'app_tokens',
    'client_apps',
    'registrations',
    'event_organizers',
    'events',
    'users',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
