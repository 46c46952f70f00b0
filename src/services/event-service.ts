import type { Stores } from '../stores/stores.js';
import type { EventRow, UserRow } from '../stores/types.js';
import { Conflict, InvalidInput } from './errors.js';
import type { UserService } from './user-service.js';
import * as v from './validation.js';

/** A new event as an operator describes one; every field is checked here. */
export interface NewEventInput {
  slug: string;
  name: string;
  /** Users by email or uid: at least one. */
  organizers: readonly string[];
  visibility?: string;
  /** ISO 8601 date-times. */
  startsAt?: string;
  endsAt?: string;
  timeZone?: string;
}

export class EventService {
  constructor(
    private readonly stores: Stores,
    private readonly users: UserService,
  ) {}

  findBySlugs(slugs: readonly string[]): Promise<EventRow[]> {
    return this.stores.events.findBySlugs(slugs);
  }

  /** Organizer user ids of each event: what the visibility policy decides by. */
  organizerIds(eventIds: readonly number[]): Promise<Map<number, number[]>> {
    return this.stores.events.organizerIds(eventIds);
  }

  /** Creates an event with its organizers; a slug names one event only. */
  async create(input: NewEventInput): Promise<{ event: EventRow; organizers: UserRow[] }> {
    const slug = v.slug(input.slug);
    const startsAt = input.startsAt === undefined ? null : v.isoTime(input.startsAt, 'starts_at');
    const endsAt = input.endsAt === undefined ? null : v.isoTime(input.endsAt, 'ends_at');
    v.timeRange(startsAt, endsAt);
    const name = v.text(input.name, 'name');
    const timeZone = input.timeZone === undefined ? null : v.timeZone(input.timeZone, 'time_zone');
    const visibility = v.visibility(input.visibility ?? 'public');
    if (input.organizers.length === 0) {
      throw new InvalidInput('must be a non-empty list of users (email or uid)', 'organizers');
    }
    const organizers = await this.users.getByKeys(input.organizers);
    if (await this.stores.events.findBySlug(slug)) throw new Conflict(`an event with slug ${slug} exists`);
    const event = await this.stores.events.create({
      slug,
      name,
      startsAt,
      endsAt,
      timeZone,
      visibility,
      organizerIds: organizers.map((u) => u.id),
    });
    return { event, organizers };
  }
}
