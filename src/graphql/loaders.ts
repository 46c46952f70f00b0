import DataLoader from 'dataloader';
import type { Services } from '../services/services.js';
import type { EventRow, RegistrationWithRegistrant, UserRow } from '../stores/types.js';

/** Per-request batching: one SQL statement per kind of lookup, whatever the page size. */
export function createLoaders(services: Services) {
  return {
    eventBySlug: new DataLoader<string, EventRow | null>(async (slugs) => {
      const rows = await services.events.findBySlugs(slugs);
      return slugs.map((slug) => rows.find((r) => r.slug === slug) ?? null);
    }),
    eventById: new DataLoader<number, EventRow | null>(async (ids) => {
      const rows = new Map((await services.events.findByIds(ids)).map((e) => [e.id, e]));
      return ids.map((id) => rows.get(id) ?? null);
    }),
    organizerIds: new DataLoader<number, number[]>(async (eventIds) => {
      const byEvent = await services.events.organizerIds(eventIds);
      return eventIds.map((id) => byEvent.get(id) ?? []);
    }),
    userById: new DataLoader<number, UserRow | null>(async (ids) => {
      const rows = new Map((await services.users.findByIds(ids)).map((u) => [u.id, u]));
      return ids.map((id) => rows.get(id) ?? null);
    }),
    registrationById: new DataLoader<number, RegistrationWithRegistrant | null>(async (ids) => {
      const rows = new Map((await services.registrations.findManyWithRegistrant(ids)).map((r) => [r.id, r]));
      return ids.map((id) => rows.get(id) ?? null);
    }),
    registeredEventIds: new DataLoader<number, number[]>(async (userIds) => {
      const byUser = await services.registrations.eventIdsOfMany(userIds);
      return userIds.map((id) => byUser.get(id) ?? []);
    }),
    registrationCount: new DataLoader<number, number>(async (eventIds) => {
      const counts = await services.registrations.counts(eventIds);
      return eventIds.map((id) => counts.get(id) ?? 0);
    }),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
