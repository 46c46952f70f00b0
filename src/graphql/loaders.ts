import DataLoader from 'dataloader';
import type { ReuseFor } from '../services/event-service.js';
import type { Services } from '../services/services.js';
import type { EventRow, EventWithOrganizers, RegistrationWithRegistrant, UserRow } from '../stores/types.js';
import type { AnswerReads } from '../lib/answer-reads.js';

/**
 * Per-request batching: one SQL statement per kind of lookup, whatever the page size. Each loader is made on
 * first use: a request reads through two or three of the seven, and each costs a cache and closures to make.
 */
export class Loaders {
  #eventBySlug?: DataLoader<string, EventRow | null>;
  #eventById?: DataLoader<number, EventRow | null>;
  #organizerIds?: DataLoader<number, number[]>;
  #userById?: DataLoader<number, UserRow | null>;
  #registrationById?: DataLoader<number, RegistrationWithRegistrant | null>;
  #registeredEventIds?: DataLoader<number, number[]>;
  #registrationCount?: DataLoader<number, number>;

  /**
   * `reads`: where an answer that may be replayed records the registrations it reads. `reuse`: the data epoch
   * the request read before it began, and its viewer, for which events read by an earlier request are reused.
   */
  constructor(
    private readonly services: Services,
    private readonly reads?: AnswerReads,
    private readonly reuse?: ReuseFor,
  ) {}

  get eventBySlug(): DataLoader<string, EventRow | null> {
    return (this.#eventBySlug ??= new DataLoader(async (slugs) => {
      const rows = this.withOrganizers(await this.services.events.findBySlugsWithOrganizers(slugs, this.reuse));
      return slugs.map((slug) => rows.find((r) => r.slug === slug) ?? null);
    }));
  }

  get eventById(): DataLoader<number, EventRow | null> {
    return (this.#eventById ??= new DataLoader(async (ids) => {
      const rows = new Map(
        this.withOrganizers(await this.services.events.findByIdsWithOrganizers(ids, this.reuse)).map((e) => [e.id, e]),
      );
      return ids.map((id) => rows.get(id) ?? null);
    }));
  }

  /** Each event's organizers came with it: the policy's reads of them need no statement of their own. */
  private withOrganizers(rows: EventWithOrganizers[]): EventRow[] {
    return rows.map(({ organizerIds, ...event }) => {
      this.organizerIds.prime(event.id, organizerIds);
      return event;
    });
  }

  get organizerIds(): DataLoader<number, number[]> {
    return (this.#organizerIds ??= new DataLoader(async (eventIds) => {
      const byEvent = await this.services.events.organizerIds(eventIds);
      return eventIds.map((id) => byEvent.get(id) ?? []);
    }));
  }

  get userById(): DataLoader<number, UserRow | null> {
    return (this.#userById ??= new DataLoader(async (ids) => {
      const rows = new Map((await this.services.users.findByIds(ids)).map((u) => [u.id, u]));
      return ids.map((id) => rows.get(id) ?? null);
    }));
  }

  get registrationById(): DataLoader<number, RegistrationWithRegistrant | null> {
    return (this.#registrationById ??= new DataLoader(async (ids) => {
      if (this.reads) this.reads.anyRegistration = true;
      const rows = new Map((await this.services.registrations.findManyWithRegistrant(ids)).map((r) => [r.id, r]));
      return ids.map((id) => rows.get(id) ?? null);
    }));
  }

  get registeredEventIds(): DataLoader<number, number[]> {
    return (this.#registeredEventIds ??= new DataLoader(async (userIds) => {
      for (const id of userIds) this.reads?.users.add(id);
      const byUser = await this.services.registrations.eventIdsOfMany(userIds);
      return userIds.map((id) => byUser.get(id) ?? []);
    }));
  }

  get registrationCount(): DataLoader<number, number> {
    return (this.#registrationCount ??= new DataLoader(async (eventIds) => {
      for (const id of eventIds) this.reads?.readEvent(id);
      const counts = await this.services.registrations.counts(eventIds);
      return eventIds.map((id) => counts.get(id) ?? 0);
    }));
  }
}

export const createLoaders = (services: Services, reads?: AnswerReads, reuse?: ReuseFor): Loaders =>
  new Loaders(services, reads, reuse);
