import type { Knex } from 'knex';

// Grants listed per user and per app (account settings), and sessions of the account pages.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('oidc_payloads', (t) => {
    t.string('account_id', 64).nullable();
    t.string('client_id', 64).nullable();
    t.index(['account_id', 'model']);
    t.index(['client_id']);
  });
  // Backfill grants stored before these columns existed.
  const grants = await knex('oidc_payloads').where({ model: 'Grant' }).select('id', 'payload');
  for (const row of grants as { id: string; payload: string }[]) {
    const payload = JSON.parse(row.payload) as { accountId?: string; clientId?: string };
    await knex('oidc_payloads')
      .where({ model: 'Grant', id: row.id })
      .update({ account_id: payload.accountId ?? null, client_id: payload.clientId ?? null, grant_id: row.id });
  }

  await knex.schema.createTable('account_sessions', (t) => {
    t.string('id_hash', 128).primary(); // SHA-256 of the cookie value
    t.integer('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.index(['expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('account_sessions');
  await knex.schema.alterTable('oidc_payloads', (t) => {
    t.dropIndex(['account_id', 'model']);
    t.dropIndex(['client_id']);
    t.dropColumn('account_id');
    t.dropColumn('client_id');
  });
}
