import type { EventReuse } from '../stores/event-store.js';
import type { EpochRead } from '../stores/rows-at-epoch.js';
import type { Stores } from '../stores/stores.js';
import type { EventRow, EventWithOrganizers, Page, UserRow } from '../stores/types.js';
import { Conflict, InvalidInput, NotFound } from './errors.js';
import { reuseEpochs } from './epoch-reads.js';
import { checkEventFields, type EventFieldInput, type NewEventFieldInput } from './event-fields.js';
import { actingUserId, canSeeEvent } from './policy.js';
import type { UserService } from './user-service.js';
import type { Viewer } from './viewer.js';
import * as v from './validation.js';

/** A new event as an operator describes one; every field is checked here. */
export type NewEventInput = NewEventFieldInput & {
  slug: string;
  /** Users by email or uid: at least one. */
  organizers: readonly string[];
};

/** What an operator changes of an event; fields left out keep their stored value, null clears a nullable one. */
export type EventUpdateInput = EventFieldInput & {
  /** Users by email or uid. */
  addOrganizers?: readonly string[];
  removeOrganizers?: readonly string[];
};

/** Who reads events, at which data epoch (read just before): what lets kept rows be reused for them. */
export interface ReuseFor {
  at: EpochRead;
  viewer: Viewer;
}

/** An event with its organizers (in the order stored) and how many registered. */
export interface EventDetail {
  event: EventRow;
  organizers: UserRow[];
  registrations: number;
}

export class EventService {
  constructor(
    private readonly stores: Stores,
    private readonly users: UserService,
  ) {}

  /**
   * Events with their organizers' ids, each read in one statement with its event. `reuse` (a request's data
   * epoch, read just before, and its viewer) lets rows read at that same epoch be reused, but only those the
   * viewer may see: an event hidden from them is read as a missing one is, in the same time.
   */
  async findBySlugsWithOrganizers(slugs: readonly string[], reuse?: ReuseFor): Promise<EventWithOrganizers[]> {
    return this.stores.events.findBySlugsWithOrganizers(slugs, reuse && (await this.visibleReuse(reuse)));
  }

  async findByIdsWithOrganizers(ids: readonly number[], reuse?: ReuseFor): Promise<EventWithOrganizers[]> {
    return this.stores.events.findByIdsWithOrganizers(ids, reuse && (await this.visibleReuse(reuse)));
  }

  /** A request held up since it read the epochs (a slow body) reads them again: its rows are judged as of now. */
  private async visibleReuse({ at, viewer }: ReuseFor): Promise<EventReuse> {
    return {
      at: await reuseEpochs(this.stores, at),
      usable: (event) => canSeeEvent(viewer, event, event.organizerIds),
    };
  }

  /** Keyset page of the events the viewer may see (policy.canSeeEvent, as one statement): public or organized. */
  visiblePage(viewer: Viewer, first: number, afterId: number | null): Promise<Page<EventRow>> {
    return this.stores.events.visiblePage(actingUserId(viewer), first, afterId);
  }

  /** Organizer user ids of each event: what the visibility policy decides by. */
  organizerIds(eventIds: readonly number[]): Promise<Map<number, number[]>> {
    return this.stores.events.organizerIds(eventIds);
  }

  /** Creates an event with its organizers; a slug names one event only. */
  async create(input: NewEventInput): Promise<{ event: EventRow; organizers: UserRow[] }> {
    const slug = v.slug(input.slug);
    const fields = checkEventFields(input, 'prop', { create: true });
    v.timeRange(fields.startsAt ?? null, fields.endsAt ?? null);
    if (input.organizers.length === 0) {
      throw new InvalidInput('must be a non-empty list of users (email or uid)', 'organizers');
    }
    const organizers = await this.users.getByKeys(input.organizers);
    if (await this.stores.events.findBySlug(slug)) throw new Conflict(`an event with slug ${slug} exists`);
    const event = await this.stores.events.create({ ...fields, slug, organizerIds: organizers.map((u) => u.id) });
    return { event, organizers };
  }

  /** The event with this slug, or a NotFound. */
  async get(eventSlug: string): Promise<EventRow> {
    const slug = v.slug(eventSlug, 'event');
    const event = await this.stores.events.findBySlug(slug);
    if (!event) throw new NotFound(`no event with slug ${slug}`);
    return event;
  }

  /** The event with its organizers and registration count. */
  async show(eventSlug: string): Promise<EventDetail> {
    return this.detail(await this.get(eventSlug));
  }

  /** Keyset page of events in creation order, optionally of one organizer (email or uid). */
  async list(paging: v.PageInput, organizerKey?: string): Promise<Page<EventRow>> {
    const { first, afterId } = v.paging(paging);
    const organizer = organizerKey === undefined ? undefined : await this.users.getByKey(organizerKey);
    return this.stores.events.page(first, afterId, organizer?.id);
  }

  /** Changes the fields given and adds or removes organizers; an event keeps at least one organizer. */
  async update(eventSlug: string, input: EventUpdateInput): Promise<EventDetail> {
    const { addOrganizers: add = [], removeOrganizers: remove = [], ...fields } = input;
    if (Object.values(fields).every((x) => x === undefined) && add.length === 0 && remove.length === 0) {
      throw new InvalidInput('nothing to change: give at least one field or organizer to add or remove');
    }
    const event = await this.get(eventSlug);
    const changes = { ...checkEventFields(fields, 'prop'), slug: event.slug };
    const { startsAt, endsAt } = changes;
    v.timeRange(startsAt === undefined ? event.startsAt : startsAt, endsAt === undefined ? event.endsAt : endsAt);
    const added = await this.users.getByKeys(add);
    const removed = await this.users.getByKeys(remove);
    await this.stores.transaction(async (s) => {
      const current = (await s.events.organizerIds([event.id])).get(event.id)!;
      const notOrganizer = removed.find((u) => !current.includes(u.id));
      if (notOrganizer)
        throw new InvalidInput(`${notOrganizer.uid} is not an organizer of ${event.slug}`, 'remove_organizer');
      const organizers = [...current, ...added.map((u) => u.id)].filter((id) => !removed.some((u) => u.id === id));
      if (organizers.length === 0)
        throw new InvalidInput('would leave the event without an organizer', 'remove_organizer');
      await s.events.update(event.id, changes);
      await s.events.setOrganizers(event.id, [...new Set(organizers)]);
    });
    return this.detail((await this.stores.events.findBySlug(event.slug))!);
  }

  /** Deletes the event with its registrations and organizer links (nothing else refers to an event). */
  async delete(eventSlug: string): Promise<EventDetail> {
    const detail = await this.detail(await this.get(eventSlug));
    if (!(await this.stores.events.delete(detail.event.id))) throw new NotFound(`no event with slug ${eventSlug}`);
    return detail;
  }

  private async detail(event: EventRow): Promise<EventDetail> {
    const organizerIds = (await this.stores.events.organizerIds([event.id])).get(event.id)!;
    const users = new Map((await this.users.findByIds(organizerIds)).map((u) => [u.id, u]));
    const registrations = (await this.stores.registrations.counts([event.id])).get(event.id)!;
    return { event, organizers: organizerIds.flatMap((id) => users.get(id) ?? []), registrations };
  }
}
