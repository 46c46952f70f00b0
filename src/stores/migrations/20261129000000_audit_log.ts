import type { Knex } from 'knex';

/**
 * The audit trail: who did what to what, from where, and how it went. Rows are written in the transaction of
 * the write they record; failed sign-ins are folded into one row per `bucket` (see services/audit.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('audit_log', (t) => {
    t.bigIncrements('id').primary();
    // Milliseconds: when it happened (for a folded row, the latest of its attempts).
    t.bigInteger('at').notNullable();
    // user, operator, app or anonymous.
    t.string('actor_type', 16).notNullable();
    t.string('actor', 200).nullable();
    // The account the row is about (who acted, or whose account was acted on): what the account page lists.
    t.integer('user_id').nullable();
    t.string('action', 64).notNullable();
    t.string('subject', 200).nullable();
    t.string('client_id', 200).nullable();
    t.string('address', 64).nullable();
    t.string('user_agent', 200).nullable();
    // success or failure.
    t.string('outcome', 16).notNullable();
    t.integer('count').notNullable().defaultTo(1);
    // Folded rows only: the hash of what they fold (action, subject, address, window); unique.
    t.string('bucket', 64).nullable().unique();
    t.index(['at', 'id']);
    t.index(['user_id', 'at']);
    t.index(['action', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('audit_log');
}
