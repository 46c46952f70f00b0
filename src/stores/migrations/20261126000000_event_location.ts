import type { Knex } from 'knex';

// Where an event takes place: free text of at most 200 characters (lib/event-fields.ts), null when unset.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => {
    t.string('location', 200).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  // Knex drops a SQLite column by rebuilding the table, which would take the table's data-epoch triggers with it.
  await knex.raw('ALTER TABLE events DROP COLUMN location');
}
