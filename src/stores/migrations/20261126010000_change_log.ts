import type { Knex } from 'knex';
import { isSqlite } from '../dialect.js';

/**
 * The change log: the database itself records, in the writing transaction, every change an answer could
 * show, whoever writes (CLI, import, pages, any instance). Organizer changes reach it as a bump of
 * `events.organizers_version`, which the event store bumps whenever it sets an event's organizers (the first
 * time, at creation, is no update).
 *
 * On PostgreSQL each recording first locks the data_epoch row (every write takes it anyway, till commit),
 * so positions are handed out in commit order: a reader that has seen position n never later finds a
 * smaller one committed.
 */
const SQLITE_NOW = "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)";
const PG_NOW = '(extract(epoch from clock_timestamp()) * 1000)::bigint';
const COLUMNS = 'type, event_id, event_slug, registration_id, user_id, detail, occurred_at';

/** Every column of `events` an answer shows (a new one joins here, by a migration that recreates the trigger). */
export const WATCHED_EVENT_COLUMNS = ['slug', 'name', 'starts_at', 'ends_at', 'time_zone', 'visibility', 'location'];
const REGISTRANT_FIELDS = ['name', 'email', 'email_verified', 'activation_state'];

const differs = (fields: string[], o = 'OLD', n = 'NEW') =>
  fields.map((f) => `${o}.${f} IS NOT ${n}.${f}`).join(' OR ');
const pgDiffers = (fields: string[]) => fields.map((f) => `o.${f} IS DISTINCT FROM n.${f}`).join(' OR ');

// The organizers set at creation move the version from 0: event.created tells of them already.
const SQLITE_EVENT_UPDATED = `${differs(WATCHED_EVENT_COLUMNS)} OR (OLD.organizers_version IS NOT NEW.organizers_version AND OLD.organizers_version <> 0)`;
const PG_EVENT_UPDATED = `${pgDiffers(WATCHED_EVENT_COLUMNS)} OR (o.organizers_version IS DISTINCT FROM n.organizers_version AND o.organizers_version <> 0)`;

/**
 * An event's name, visibility and organizers as they were: who may learn of its deletion, and what. json(): a
 * subquery's value is text, which json_object would embed as a string ("[1]"), not as an array.
 */
const sqliteDeletedDetail = `json_object('name', OLD.name, 'visibility', OLD.visibility, 'organizers',
  json((SELECT json_group_array(user_id) FROM event_organizers WHERE event_id = OLD.id)))`;

const SQLITE_TRIGGERS: Record<string, string> = {
  changes_event_created: `AFTER INSERT ON events BEGIN
    INSERT INTO changes (${COLUMNS}) VALUES ('event.created', NEW.id, NEW.slug, NULL, NULL, NULL, ${SQLITE_NOW}); END`,
  changes_event_updated: `AFTER UPDATE ON events WHEN ${SQLITE_EVENT_UPDATED} BEGIN
    INSERT INTO changes (${COLUMNS}) VALUES ('event.updated', NEW.id, NEW.slug, NULL, NULL, NULL, ${SQLITE_NOW}); END`,
  // Before: the organizers are still there (the cascade removes them with the event).
  changes_event_deleted: `BEFORE DELETE ON events BEGIN
    INSERT INTO changes (${COLUMNS})
    VALUES ('event.deleted', OLD.id, OLD.slug, NULL, NULL, ${sqliteDeletedDetail}, ${SQLITE_NOW}); END`,
  changes_registration_created: `AFTER INSERT ON registrations BEGIN
    INSERT INTO changes (${COLUMNS}) SELECT 'registration.created', e.id, e.slug, NEW.id, NEW.user_id, NULL, ${SQLITE_NOW}
    FROM events e WHERE e.id = NEW.event_id; END`,
  // A registration that goes with its event is told by the event's deletion alone.
  changes_registration_deleted: `AFTER DELETE ON registrations BEGIN
    INSERT INTO changes (${COLUMNS}) SELECT 'registration.deleted', e.id, e.slug, OLD.id, OLD.user_id, NULL, ${SQLITE_NOW}
    FROM events e WHERE e.id = OLD.event_id; END`,
  changes_registrant_updated: `AFTER UPDATE ON users WHEN ${differs(REGISTRANT_FIELDS)} BEGIN
    INSERT INTO changes (${COLUMNS}) SELECT 'registrant.updated', e.id, e.slug, NULL, NEW.id, NULL, ${SQLITE_NOW}
    FROM registrations r JOIN events e ON e.id = r.event_id WHERE r.user_id = NEW.id ORDER BY r.id; END`,
};

/** PostgreSQL: once per statement over its transition table, so a bulk insert of a million rows is one insert. */
const PG_FUNCTIONS: Record<string, { table: string; when: string; refs: string; body: string }> = {
  changes_event_created: {
    table: 'events',
    when: 'AFTER INSERT',
    refs: 'NEW TABLE AS n',
    body: `SELECT 'event.created', n.id, n.slug, NULL::int, NULL::int, NULL::text, ${PG_NOW} FROM n ORDER BY n.id`,
  },
  changes_event_updated: {
    table: 'events',
    when: 'AFTER UPDATE',
    refs: 'OLD TABLE AS o NEW TABLE AS n',
    body: `SELECT 'event.updated', n.id, n.slug, NULL::int, NULL::int, NULL::text, ${PG_NOW}
      FROM n JOIN o ON o.id = n.id WHERE ${PG_EVENT_UPDATED} ORDER BY n.id`,
  },
  changes_registration_created: {
    table: 'registrations',
    when: 'AFTER INSERT',
    refs: 'NEW TABLE AS n',
    body: `SELECT 'registration.created', e.id, e.slug, n.id, n.user_id, NULL::text, ${PG_NOW}
      FROM n JOIN events e ON e.id = n.event_id ORDER BY n.id`,
  },
  changes_registration_deleted: {
    table: 'registrations',
    when: 'AFTER DELETE',
    refs: 'OLD TABLE AS o',
    body: `SELECT 'registration.deleted', e.id, e.slug, o.id, o.user_id, NULL::text, ${PG_NOW}
      FROM o JOIN events e ON e.id = o.event_id ORDER BY o.id`,
  },
  changes_registrant_updated: {
    table: 'users',
    when: 'AFTER UPDATE',
    refs: 'OLD TABLE AS o NEW TABLE AS n',
    body: `SELECT 'registrant.updated', e.id, e.slug, NULL::int, n.id, NULL::text, ${PG_NOW}
      FROM n JOIN o ON o.id = n.id JOIN registrations r ON r.user_id = n.id JOIN events e ON e.id = r.event_id
      WHERE ${pgDiffers(REGISTRANT_FIELDS)} ORDER BY n.id, r.id`,
  },
};

const LOCK = 'PERFORM 1 FROM data_epoch WHERE id = 1 FOR UPDATE;';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => {
    t.integer('organizers_version').notNullable().defaultTo(0);
  });
  // Events that exist have their organizers: their next change of organizers is an update.
  await knex('events').update({ organizers_version: 1 });
  await knex.schema.createTable('changes', (t) => {
    t.bigIncrements('position').primary();
    t.string('type', 40).notNullable();
    t.integer('event_id').notNullable();
    t.string('event_slug', 200).notNullable();
    t.integer('registration_id').nullable();
    t.integer('user_id').nullable();
    // For event.deleted: the event as it was (name, visibility, organizer ids), JSON.
    t.text('detail').nullable();
    t.bigInteger('occurred_at').notNullable();
    t.index(['event_id', 'position']);
    t.index(['event_slug', 'position']);
    t.index(['occurred_at']);
  });
  await knex.schema.createTable('change_log_state', (t) => {
    t.integer('id').primary();
    // Changes up to here were dropped after CHANGES_RETENTION_DAYS: a cursor before it has missed some.
    t.bigInteger('pruned_through').notNullable();
  });
  await knex('change_log_state').insert({ id: 1, pruned_through: 0 });

  if (isSqlite(knex)) {
    for (const [name, body] of Object.entries(SQLITE_TRIGGERS)) await knex.raw(`CREATE TRIGGER ${name} ${body}`);
    return;
  }
  for (const [name, f] of Object.entries(PG_FUNCTIONS)) {
    await knex.raw(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN ${LOCK} INSERT INTO changes (${COLUMNS}) ${f.body}; RETURN NULL; END $$`);
    await knex.raw(
      `CREATE TRIGGER ${name} ${f.when} ON ${f.table} REFERENCING ${f.refs} FOR EACH STATEMENT EXECUTE FUNCTION ${name}()`,
    );
  }
  // Row by row and before: the organizers are still there (the cascade removes them with the event).
  await knex.raw(`CREATE FUNCTION changes_event_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN ${LOCK}
      INSERT INTO changes (${COLUMNS}) VALUES ('event.deleted', OLD.id, OLD.slug, NULL, NULL,
        json_build_object('name', OLD.name, 'visibility', OLD.visibility, 'organizers',
          (SELECT coalesce(json_agg(user_id ORDER BY user_id), '[]'::json) FROM event_organizers WHERE event_id = OLD.id))::text,
        ${PG_NOW});
      RETURN OLD; END $$`);
  await knex.raw(
    'CREATE TRIGGER changes_event_deleted BEFORE DELETE ON events FOR EACH ROW EXECUTE FUNCTION changes_event_deleted()',
  );
}

export async function down(knex: Knex): Promise<void> {
  const tables: Record<string, string> = { changes_event_deleted: 'events' };
  for (const [name, f] of Object.entries(PG_FUNCTIONS)) tables[name] = f.table;
  for (const name of [...Object.keys(SQLITE_TRIGGERS)]) {
    await knex.raw(`DROP TRIGGER IF EXISTS ${name}${isSqlite(knex) ? '' : ` ON ${tables[name]}`}`);
    if (!isSqlite(knex)) await knex.raw(`DROP FUNCTION IF EXISTS ${name}()`);
  }
  await knex.schema.dropTableIfExists('change_log_state');
  await knex.schema.dropTableIfExists('changes');
  // Not knex's dropColumn: on SQLite it rebuilds the table, which drops the data epoch's triggers.
  await knex.raw('ALTER TABLE events DROP COLUMN organizers_version');
}
