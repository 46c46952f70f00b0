import type { EventRow } from '../stores/types.js';
import type { Viewer } from './viewer.js';

// The permission table of SPEC §3, in one place. Callers pass the event's organizer ids.

/** The user whose organizer rights the token carries: the user, or an app token's owner. */
export function actingUserId(viewer: Viewer): number {
  return viewer.kind === 'user' ? viewer.userId : viewer.ownerId;
}

/** A user token of an organizer, or an app token of an app whose owner organizes. */
export function actsAsOrganizer(viewer: Viewer, organizerIds: readonly number[]): boolean {
  return organizerIds.includes(actingUserId(viewer));
}

export function canSeeEvent(viewer: Viewer, event: EventRow, organizerIds: readonly number[]): boolean {
  return event.visibility === 'public' || actsAsOrganizer(viewer, organizerIds);
}

export function canSeeRegistrations(viewer: Viewer, organizerIds: readonly number[]): boolean {
  return actsAsOrganizer(viewer, organizerIds);
}

/** Registrant emails: only to an organizer's own user token; app tokens never see them. */
export function canSeeRegistrantEmail(viewer: Viewer, organizerIds: readonly number[]): boolean {
  return viewer.kind === 'user' && actsAsOrganizer(viewer, organizerIds);
}
