import type { EpochRead } from '../stores/rows-at-epoch.js';
import type { Stores } from '../stores/stores.js';
import type {
  EventRow,
  KeysetRange,
  Page,
  PageWindow,
  RegistrationRow,
  RegistrationWithRegistrant,
  UserRow,
} from '../stores/types.js';
import { reuseEpochs } from './epoch-reads.js';
import { Conflict, NotFound } from './errors.js';
import type { UserService } from './user-service.js';
import * as v from './validation.js';

export class RegistrationService {
  constructor(
    private readonly stores: Stores,
    private readonly users: UserService,
  ) {}

  /** Keyset page of an event's registrations, each with its registrant, in one statement. */
  page(eventId: number, first: number, afterId: number | null): Promise<Page<RegistrationWithRegistrant>> {
    return this.stores.registrations.page(eventId, first, afterId);
  }

  /**
   * Keyset window of an event's registrations, forward or backward, each with its registrant. `at` (the epochs
   * a request read just before) lets the event's first registrations read at those same epochs be reused.
   */
  async window(
    eventId: number,
    size: number,
    range: KeysetRange,
    at?: EpochRead,
  ): Promise<PageWindow<RegistrationWithRegistrant>> {
    return this.stores.registrations.window(eventId, size, range, at && (await reuseEpochs(this.stores, at)));
  }

  findWithRegistrant(id: number): Promise<RegistrationWithRegistrant | undefined> {
    return this.stores.registrations.findWithRegistrant(id);
  }

  /** Ids of the events the user is registered for: where the user may be reached as a registrant. */
  findManyWithRegistrant(ids: readonly number[]): Promise<RegistrationWithRegistrant[]> {
    return this.stores.registrations.findManyWithRegistrant(ids);
  }

  eventIdsOfMany(userIds: readonly number[]): Promise<Map<number, number[]>> {
    return this.stores.registrations.eventIdsOfMany(userIds);
  }

  counts(eventIds: readonly number[]): Promise<Map<number, number>> {
    return this.stores.registrations.counts(eventIds);
  }

  /** An event's registrations, a keyset page at a time, each with its registrant. */
  async list(eventSlug: string, paging: v.PageInput): Promise<{ event: EventRow } & Page<RegistrationWithRegistrant>> {
    const { first, afterId } = v.paging(paging);
    const event = await this.getEvent(eventSlug);
    return { event, ...(await this.stores.registrations.page(event.id, first, afterId)) };
  }

  /** Unregisters the user (email or uid) from the event (slug). */
  async delete(eventSlug: string, userKey: string): Promise<{ event: EventRow; user: UserRow }> {
    const event = await this.getEvent(eventSlug);
    const user = await this.users.getByKey(userKey);
    if (!(await this.stores.registrations.delete(event.id, user.id))) {
      throw new NotFound(`${userKey} is not registered for ${event.slug}`);
    }
    return { event, user };
  }

  private async getEvent(eventSlug: string): Promise<EventRow> {
    const slug = v.slug(eventSlug, 'event');
    const event = await this.stores.events.findBySlug(slug);
    if (!event) throw new NotFound(`no event with slug ${slug}`);
    return event;
  }

  /** Registers the user (email or uid) for the event (slug), once. */
  async create(
    eventSlug: string,
    userKey: string,
  ): Promise<{ registration: RegistrationRow; event: EventRow; user: UserRow }> {
    const event = await this.getEvent(eventSlug);
    const user = await this.users.getByKey(userKey);
    if (await this.stores.registrations.find(event.id, user.id)) {
      throw new Conflict(`${userKey} is already registered for ${event.slug}`);
    }
    return { registration: await this.stores.registrations.create(event.id, user.id), event, user };
  }
}
