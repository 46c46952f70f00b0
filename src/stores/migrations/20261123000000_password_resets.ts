import type { Knex } from 'knex';

// One-time password reset links: the link carries `id.secret`, the table only the secret's SHA-256.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('password_resets', (t) => {
    t.string('id', 32).primary();
    t.string('secret_hash', 64).notNullable();
    t.integer('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('used_at').nullable();
    t.index(['user_id']);
    t.index(['expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('password_resets');
}
