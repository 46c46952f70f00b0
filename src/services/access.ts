import type { EventRow } from '../stores/types.js';
import { canSeeEvent, canSeeRegistrantEmail, canSeeRegistrations } from './policy.js';
import type { Viewer } from './viewer.js';

/** What the rules need to know, found by the caller: batched per request (GraphQL's loaders) or directly. */
export interface AccessFacts {
  eventById(eventId: number): Promise<EventRow | null>;
  organizerIds(eventId: number): Promise<readonly number[]>;
  /** The events a user is registered for. */
  registeredEventIds(userId: number): Promise<readonly number[]>;
}

/** Registrations (or a registrant) the viewer may read, and whether it may read their email addresses. */
export interface Readable {
  showEmail: boolean;
}

export type Access = ReturnType<typeof createAccess>;

/**
 * The permission rules of policy.ts applied for one viewer to what is stored: every reader (the API's roots,
 * its fields, node lookups) asks here, so none orchestrates the rules its own way.
 */
export function createAccess(viewer: Viewer, facts: AccessFacts) {
  const readable = (organizerIds: readonly number[]): Readable | null =>
    canSeeRegistrations(viewer, organizerIds) ? { showEmail: canSeeRegistrantEmail(viewer, organizerIds) } : null;

  /** The event when the viewer may see it; null when it may not (missing and hidden look the same). */
  const event = async <T extends EventRow>(row: T | null | undefined): Promise<T | null> => {
    if (!row) return null;
    return canSeeEvent(viewer, row, await facts.organizerIds(row.id)) ? row : null;
  };

  return {
    viewer,
    event,
    /** The event of this id when the viewer may see it. */
    async eventById(eventId: number): Promise<EventRow | null> {
      return event(await facts.eventById(eventId));
    },
    /** Whether the viewer could see a deleted event, as it was when deleted. */
    sawDeleted(was: Pick<EventRow, 'visibility'> & { organizers: readonly number[] }): boolean {
      return canSeeEvent(viewer, was, was.organizers);
    },
    /** Whether the viewer may read the event's registrations, and their registrants' emails. */
    async registrations(eventId: number): Promise<Readable | null> {
      return readable(await facts.organizerIds(eventId));
    },
    /** A registrant as some event's registrations reach them: the email when any such event would show it. */
    async registrant(userId: number): Promise<Readable | null> {
      const eventIds = await facts.registeredEventIds(userId);
      const all = await Promise.all(eventIds.map((id) => facts.organizerIds(id)));
      const reached = all.map(readable).filter((r): r is Readable => r !== null);
      return reached.length ? { showEmail: reached.some((r) => r.showEmail) } : null;
    },
  };
}
