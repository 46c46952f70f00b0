import type { Knex } from 'knex';
import { isSqlite } from '../dialect.js';

/**
 * Webhooks and their deliveries. A delivery is queued by the database in the transaction that records the
 * change (a trigger on `changes`), so a change committed is a delivery committed: a process killed at any
 * moment loses none. Whether the app may see the change is decided when it is sent (its rights then).
 */
const QUEUE = 'webhook_id, kind, change_position, message_id, state, attempts, next_attempt_at, created_at';

/**
 * Whether the app (`a`) could see change `c` as it is queued: its owner is active and organizes the event,
 * or the event is public and the change is of the event itself. An event's creation is always queued (its
 * organizers are set just after it). What is queued is checked again when sent; this only keeps one app's
 * webhooks from queueing rows for every write it may never see.
 */
const mightSee = (c: string) => `u.activation_state = 'active' AND (
  ${c}.type = 'event.created'
  OR EXISTS (SELECT 1 FROM event_organizers o WHERE o.event_id = ${c}.event_id AND o.user_id = a.owner_id)
  OR (${c}.type IN ('event.updated', 'event.deleted')
      AND EXISTS (SELECT 1 FROM events e WHERE e.id = ${c}.event_id AND e.visibility = 'public')))`;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhooks', (t) => {
    t.increments('id').primary();
    t.integer('app_id').notNullable().references('client_apps.id').onDelete('CASCADE');
    t.string('url', 2048).notNullable();
    // whsec_… sealed with the service's key (lib/sealed-secret.ts): it must sign, so it cannot be a hash.
    t.text('secret_sealed').notNullable();
    // JSON array of change types; null: every type.
    t.text('types').nullable();
    t.string('event_slug', 200).nullable();
    t.boolean('enabled').notNullable().defaultTo(true);
    t.string('disabled_reason', 500).nullable();
    // Since when every attempt failed: past WEBHOOK_DISABLE_AFTER the webhook is disabled.
    t.bigInteger('failing_since').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['app_id']);
  });
  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.bigIncrements('id').primary();
    t.integer('webhook_id').notNullable().references('webhooks.id').onDelete('CASCADE');
    // `change` (of the log) or `ping` (a test an owner sends).
    t.string('kind', 8).notNullable();
    t.bigInteger('change_position').nullable();
    // The Standard Webhooks `webhook-id`: the same on every attempt of this delivery.
    t.string('message_id', 64).notNullable().unique();
    // pending, delivered, failed (the schedule ran out), skipped (the app may not see the change).
    t.string('state', 16).notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.bigInteger('next_attempt_at').notNullable();
    // An instance sending it holds it until then; after, any instance may take it again.
    t.bigInteger('lease_until').nullable();
    t.integer('last_status').nullable();
    t.string('last_error', 500).nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('finished_at').nullable();
    // What is due, per webhook (claiming); a webhook's history (listing).
    t.index(['webhook_id', 'state', 'next_attempt_at', 'id']);
    t.index(['webhook_id', 'id']);
    // The backlog gauges and pruning.
    t.index(['state', 'finished_at']);
  });
  await knex.schema.createTable('webhook_attempts', (t) => {
    t.bigIncrements('id').primary();
    t.bigInteger('delivery_id').notNullable().references('webhook_deliveries.id').onDelete('CASCADE');
    t.bigInteger('at').notNullable();
    t.integer('status').nullable();
    t.integer('duration_ms').notNullable();
    t.string('error', 500).nullable();
    t.index(['delivery_id', 'id']);
  });

  if (isSqlite(knex)) {
    await knex.raw(`CREATE TRIGGER webhooks_queue AFTER INSERT ON changes BEGIN
      INSERT INTO webhook_deliveries (${QUEUE})
      SELECT w.id, 'change', NEW.position, 'msg_' || NEW.position || '_' || w.id, 'pending', 0, NEW.occurred_at, NEW.occurred_at
      FROM webhooks w JOIN client_apps a ON a.id = w.app_id JOIN users u ON u.id = a.owner_id
      WHERE w.enabled AND (w.event_slug IS NULL OR w.event_slug = NEW.event_slug)
        AND (w.types IS NULL OR EXISTS (SELECT 1 FROM json_each(w.types) WHERE value = NEW.type))
        AND ${mightSee('NEW')}; END`);
    return;
  }
  await knex.raw(`CREATE FUNCTION webhooks_queue() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO webhook_deliveries (${QUEUE})
      SELECT w.id, 'change', n.position, 'msg_' || n.position || '_' || w.id, 'pending', 0, n.occurred_at, n.occurred_at
      FROM n JOIN webhooks w ON w.enabled AND (w.event_slug IS NULL OR w.event_slug = n.event_slug)
        AND (w.types IS NULL OR w.types::jsonb @> jsonb_build_array(n.type))
      JOIN client_apps a ON a.id = w.app_id JOIN users u ON u.id = a.owner_id
      WHERE ${mightSee('n')}
      ORDER BY n.position, w.id;
      RETURN NULL;
    END $$`);
  await knex.raw(
    'CREATE TRIGGER webhooks_queue AFTER INSERT ON changes REFERENCING NEW TABLE AS n FOR EACH STATEMENT EXECUTE FUNCTION webhooks_queue()',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TRIGGER IF EXISTS webhooks_queue${isSqlite(knex) ? '' : ' ON changes'}`);
  if (!isSqlite(knex)) await knex.raw('DROP FUNCTION IF EXISTS webhooks_queue()');
  await knex.schema.dropTableIfExists('webhook_attempts');
  await knex.schema.dropTableIfExists('webhook_deliveries');
  await knex.schema.dropTableIfExists('webhooks');
}
