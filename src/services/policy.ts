import type { EventRow } from '../stores/types.js';
import type { Viewer } from './viewer.js';

// Who may see what (docs/api.md), in one place. Callers pass the event's organizer ids.

/** The scope a user token needs to read the API as its user: the consent page lists the API under it alone. */
export const API_SCOPE = 'openid';

/** App tokens read with their own rights; a user token only when it was granted API_SCOPE. */
export function mayReadApi(viewer: Viewer): boolean {
  return viewer.kind === 'app' || viewer.scopes.includes(API_SCOPE);
}

/** The user whose organizer rights the token carries: the user, or an app token's owner. */
export function actingUserId(viewer: Viewer): number {
  return viewer.kind === 'user' ? viewer.userId : viewer.ownerId;
}

/** A user token of an organizer, or an app token of an app whose owner organizes. */
export function actsAsOrganizer(viewer: Viewer, organizerIds: readonly number[]): boolean {
  return organizerIds.includes(actingUserId(viewer));
}

export function canSeeEvent(
  viewer: Viewer,
  event: Pick<EventRow, 'visibility'>,
  organizerIds: readonly number[],
): boolean {
  return event.visibility === 'public' || actsAsOrganizer(viewer, organizerIds);
}

export function canSeeRegistrations(viewer: Viewer, organizerIds: readonly number[]): boolean {
  return actsAsOrganizer(viewer, organizerIds);
}

/** Registrant emails: only to an organizer's own user token; app tokens never see them. */
export function canSeeRegistrantEmail(viewer: Viewer, organizerIds: readonly number[]): boolean {
  return viewer.kind === 'user' && actsAsOrganizer(viewer, organizerIds);
}
