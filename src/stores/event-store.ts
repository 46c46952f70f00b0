import { eventRow, insertEvent, setOrganizers, type EventFields } from './import-store.js';
import type { Db } from './knex.js';
import { toEvent } from './rows.js';
import type { EventRow } from './types.js';

export type NewEvent = EventFields & { organizerIds: number[] };

export class EventStore {
  constructor(private readonly db: Db) {}

  async findBySlugs(slugs: readonly string[]): Promise<EventRow[]> {
    if (slugs.length === 0) return [];
    return (await this.db('events').whereIn('slug', slugs)).map(toEvent);
  }

  async findBySlug(slug: string): Promise<EventRow | undefined> {
    const row = await this.db('events').where({ slug }).first();
    return row ? toEvent(row) : undefined;
  }

  /** Organizer user ids of each event, in one statement. */
  async organizerIds(eventIds: readonly number[]): Promise<Map<number, number[]>> {
    const byEvent = new Map<number, number[]>(eventIds.map((id) => [id, []]));
    if (eventIds.length === 0) return byEvent;
    const rows = await this.db('event_organizers').whereIn('event_id', eventIds).select('event_id', 'user_id');
    for (const r of rows) byEvent.get(Number(r.event_id))?.push(Number(r.user_id));
    return byEvent;
  }

  async create(event: NewEvent, now = Date.now()): Promise<EventRow> {
    return this.db.transaction(async (trx) => {
      const id = await insertEvent(trx, event, now);
      await setOrganizers(trx, id, [...new Set(event.organizerIds)]);
      return eventRow(id, event, now);
    });
  }
}
