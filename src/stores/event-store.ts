import {
  EVENT_FIELDS,
  EVENT_INITIAL,
  givenEventFields,
  type EventFieldValues,
  type NewEventValues,
} from '../lib/event-fields.js';
import { chunks } from './chunks.js';
import type { Db } from './database.js';
import { hotRead } from './hot-reads.js';
import { keysetPage } from './keyset.js';
import { RowsAtEpoch, type EpochRead } from './rows-at-epoch.js';
import { toEvent, toEventWithOrganizers } from './rows.js';
import type { EventRow, EventWithOrganizers, Page } from './types.js';

/** An event's writable fields: on insert an absent one gets its default, on update it keeps its stored value. */
export type EventFields = { slug: string } & Partial<EventFieldValues>;

/** A new event's fields: the slug and the required ones (the name), the rest optional. */
export type EventInsert = EventFields & NewEventValues;

export type NewEvent = EventInsert & { organizerIds: number[] };

/** The columns of the fields `e` gives (the slug is the key, set on insert only). */
function eventColumns(e: Partial<EventFieldValues>): Record<string, unknown> {
  const columns: Record<string, unknown> = {};
  for (const f of EVENT_FIELDS) if (e[f.prop] !== undefined) columns[f.column] = e[f.prop];
  return columns;
}

const newEventColumns = (e: EventInsert, now: number) => ({
  ...eventColumns(EVENT_INITIAL),
  ...eventColumns(e),
  slug: e.slug,
  created_at: now,
  updated_at: now,
});

/** An event's stored values, without its id and timestamps. */
export type EventValues = Omit<EventRow, 'id' | 'createdAt' | 'updatedAt'>;

/** True when updating the stored event with `e` would change it. */
export function eventDiffers(row: EventValues, e: Partial<EventFieldValues>): boolean {
  return EVENT_FIELDS.some((f) => e[f.prop] !== undefined && row[f.prop] !== e[f.prop]);
}

/** Events kept with their organizers, per key: far more than an instance's API reads between two writes. */
const EVENTS_KEPT = 1000;

/** When kept events may be reused: at the data epoch the caller read, and for a row `usable` accepts. */
export interface EventReuse {
  at: EpochRead;
  usable: (event: EventWithOrganizers) => boolean;
}

export class EventStore {
  /** The API's event reads, kept while the data epoch stands still (rows-at-epoch.ts). */
  private readonly bySlug = new RowsAtEpoch<string, EventWithOrganizers>(EVENTS_KEPT);
  private readonly byId = new RowsAtEpoch<number, EventWithOrganizers>(EVENTS_KEPT);

  constructor(private readonly db: Db) {}

  /** A few statements for any number of slugs (one for a page's worth). */
  async findBySlugs(slugs: readonly string[]): Promise<EventRow[]> {
    const rows: EventRow[] = [];
    for (const part of chunks([...new Set(slugs)])) {
      const found = await hotRead<Record<string, unknown>>(this.db, `events.bySlugs ${part.length}`, part, (...p) =>
        this.db('events').whereIn('slug', p),
      );
      for (const r of found) rows.push(toEvent(r));
    }
    return rows;
  }

  /**
   * Events by slug with their organizers, one statement for any number (the API reads both for each). Given
   * the data epoch the caller read just before, rows read at that same epoch are reused, no statement, where
   * `reuse.usable` says so (rows-at-epoch.ts).
   */
  findBySlugsWithOrganizers(slugs: readonly string[], reuse?: EventReuse): Promise<EventWithOrganizers[]> {
    return this.keptWithOrganizers(this.bySlug, 'slug', slugs, (e) => e.slug, reuse);
  }

  /** Events by id with their organizers, as findBySlugsWithOrganizers. */
  findByIdsWithOrganizers(ids: readonly number[], reuse?: EventReuse): Promise<EventWithOrganizers[]> {
    return this.keptWithOrganizers(this.byId, 'id', ids, (e) => e.id, reuse);
  }

  private keptWithOrganizers<K extends string | number>(
    kept: RowsAtEpoch<K, EventWithOrganizers>,
    column: 'slug' | 'id',
    keys: readonly K[],
    keyOf: (e: EventWithOrganizers) => K,
    reuse: EventReuse | undefined,
  ): Promise<EventWithOrganizers[]> {
    // A transaction's reads may see its own writes, not yet anyone else's: never kept, never served kept rows.
    const at = this.db.isTransaction ? undefined : reuse?.at;
    return kept.get(keys, at, keyOf, (missing) => this.findWithOrganizers(column, missing), reuse?.usable);
  }

  /** The events' columns and their organizers' ids as one text column (string_agg: PostgreSQL, SQLite ≥ 3.44). */
  private async findWithOrganizers(
    column: 'slug' | 'id',
    keys: readonly (string | number)[],
  ): Promise<EventWithOrganizers[]> {
    const rows: EventWithOrganizers[] = [];
    for (const part of chunks([...new Set(keys)])) {
      const found = await hotRead<Record<string, unknown>>(
        this.db,
        `events.withOrganizers ${column} ${part.length}`,
        part,
        (...p) =>
          this.db('events')
            .whereIn(column, p)
            .select(
              'events.*',
              this.db.raw(
                "(SELECT string_agg(CAST(o.user_id AS TEXT), ',') FROM event_organizers o WHERE o.event_id = events.id) AS organizer_ids",
              ),
            ),
      );
      for (const r of found) {
        const row = toEventWithOrganizers(r);
        // Shared by every request reading the same epoch once kept: nobody may change them.
        Object.freeze(row.organizerIds);
        rows.push(row);
      }
    }
    return rows;
  }

  async findBySlug(slug: string): Promise<EventRow | undefined> {
    const row = await this.db('events').where({ slug }).first();
    return row ? toEvent(row) : undefined;
  }

  /** Organizer user ids of each event, in one statement. */
  async organizerIds(eventIds: readonly number[]): Promise<Map<number, number[]>> {
    const byEvent = new Map<number, number[]>(eventIds.map((id) => [id, []]));
    if (eventIds.length === 0) return byEvent;
    const rows = await hotRead<{ event_id: number; user_id: number }>(
      this.db,
      `events.organizerIds ${eventIds.length}`,
      eventIds,
      (...p) => this.db('event_organizers').whereIn('event_id', p).select('event_id', 'user_id'),
    );
    for (const r of rows) byEvent.get(Number(r.event_id))?.push(Number(r.user_id));
    return byEvent;
  }

  /** Organizer uids of each event, sorted, in one statement. */
  async organizerUids(eventIds: readonly number[]): Promise<Map<number, string[]>> {
    const byEvent = new Map<number, string[]>(eventIds.map((id) => [id, []]));
    if (eventIds.length === 0) return byEvent;
    const rows = await this.db('event_organizers as o')
      .join('users as u', 'u.id', 'o.user_id')
      .whereIn('o.event_id', eventIds)
      .orderBy('u.uid')
      .select('o.event_id', 'u.uid');
    for (const r of rows) byEvent.get(Number(r.event_id))?.push(String(r.uid));
    return byEvent;
  }

  /** Creates the event with its organizers, all or nothing. */
  async create(event: NewEvent, now = Date.now()): Promise<EventRow> {
    return this.db.transaction(async (trx) => {
      const events = new EventStore(trx);
      const row = await events.insert(event, now);
      await events.setOrganizers(row.id, event.organizerIds);
      return row;
    });
  }

  /** Inserts the event alone; returns its row without reading it back. */
  async insert(e: EventInsert, now = Date.now()): Promise<EventRow> {
    const [inserted] = await this.db('events').insert(newEventColumns(e, now)).returning('id');
    return {
      id: Number(typeof inserted === 'object' ? inserted.id : inserted),
      slug: e.slug,
      ...EVENT_INITIAL,
      ...givenEventFields(e),
      createdAt: now,
      updatedAt: now,
    };
  }

  /** Inserts events in one statement per chunk, ids in the order given; returns the new ids by slug. */
  async insertMany(events: readonly EventInsert[], now = Date.now()): Promise<Map<string, number>> {
    const ids = new Map<string, number>();
    for (const part of chunks(events)) {
      const rows: { id: number; slug: string }[] = await this.db('events')
        .insert(part.map((e) => newEventColumns(e, now)))
        .returning(['id', 'slug']);
      for (const r of rows) ids.set(String(r.slug), Number(r.id));
    }
    return ids;
  }

  async update(id: number, e: EventFields, now = Date.now()): Promise<void> {
    await this.db('events')
      .where({ id })
      .update({ ...eventColumns(e), updated_at: now });
  }

  /** Makes the event's organizers exactly `userIds`; returns whether anything changed. */
  async setOrganizers(eventId: number, userIds: readonly number[]): Promise<boolean> {
    const current = (await this.db('event_organizers').where({ event_id: eventId }).pluck('user_id')).map(Number);
    const wanted = new Set(userIds);
    const same = current.length === wanted.size && current.every((id) => wanted.has(id));
    if (same) return false;
    await this.db('event_organizers').where({ event_id: eventId }).delete();
    await this.db('event_organizers').insert([...wanted].map((user_id) => ({ event_id: eventId, user_id })));
    // The change log hears of organizers through the event's row (see the change_log migration).
    await this.db('events').where({ id: eventId }).increment('organizers_version', 1);
    return true;
  }

  /** Makes each event's organizers exactly the user ids given, in a few statements for any number of events. */
  async replaceOrganizers(byEvent: ReadonlyMap<number, readonly number[]>): Promise<void> {
    for (const part of chunks([...byEvent.keys()])) {
      await this.db('event_organizers').whereIn('event_id', part).delete();
      await this.db('events').whereIn('id', part).increment('organizers_version', 1);
    }
    const links = [...byEvent].flatMap(([event_id, ids]) =>
      [...new Set(ids)].map((user_id) => ({ event_id, user_id })),
    );
    for (const part of chunks(links)) await this.db('event_organizers').insert(part);
  }

  /** Keyset page of events in creation (id) order, optionally of one organizer. */
  page(first: number, afterId: number | null, organizerId?: number): Promise<Page<EventRow>> {
    const query = this.db('events').select('events.*');
    if (organizerId !== undefined) {
      void query.whereIn('events.id', this.db('event_organizers').where({ user_id: organizerId }).select('event_id'));
    }
    return keysetPage(query, 'events.id', first, afterId, toEvent);
  }

  /** Keyset page of the events public or organized by the user (null: public ones only), in id order. */
  visiblePage(organizerId: number | null, first: number, afterId: number | null): Promise<Page<EventRow>> {
    const query = this.db('events')
      .select('events.*')
      .where((w) => {
        void w.where('events.visibility', 'public');
        if (organizerId !== null) {
          void w.orWhereIn('events.id', this.db('event_organizers').where({ user_id: organizerId }).select('event_id'));
        }
      });
    return keysetPage(query, 'events.id', first, afterId, toEvent);
  }

  /** Events by id, in one statement per chunk. */
  async findByIds(ids: readonly number[]): Promise<EventRow[]> {
    const rows: EventRow[] = [];
    for (const part of chunks([...new Set(ids)])) {
      for (const r of await this.db('events').whereIn('id', part)) rows.push(toEvent(r));
    }
    return rows;
  }

  /** Slugs of the events the user organizes, and of those they alone organize. */
  async organizedBy(userId: number): Promise<{ all: string[]; alone: string[] }> {
    const rows: { slug: string; others: number | string }[] = await this.db('events as e')
      .join('event_organizers as o', 'o.event_id', 'e.id')
      .where('o.user_id', userId)
      .orderBy('e.id')
      .select(
        'e.slug',
        this.db('event_organizers as o2')
          .whereRaw('o2.event_id = e.id')
          .andWhere('o2.user_id', '<>', userId)
          .count('*')
          .as('others'),
      );
    return {
      all: rows.map((r) => r.slug),
      alone: rows.filter((r) => Number(r.others) === 0).map((r) => r.slug),
    };
  }

  /** Deletes the event; its registrations and organizer links cascade. */
  async delete(id: number): Promise<boolean> {
    return (await this.db('events').where({ id }).delete()) > 0;
  }
}
