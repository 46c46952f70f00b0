/**
 * The registrations an answer read: a registration written later (anywhere) drops only the replayed answers
 * that read its event's registrations, its user's, or registrations by id (graphql/response-cache.ts).
 */
export class AnswerReads {
  /**
   * Events whose registrations (a page, a count) the answer read, each with the last registration id that
   * can show in it: a forward page with more after it ends at its last row, anything else reads them all.
   */
  readonly events = new Map<number, number>();
  /** Users whose registrations (where they are registered) the answer read. */
  readonly users = new Set<number>();
  /** Registrations by id, or the change log: any registration written may change the answer. */
  anyRegistration = false;

  /** The answer read `eventId`'s registrations through id `throughId` (all of them when not given). */
  readEvent(eventId: number, throughId = Infinity): void {
    this.events.set(eventId, Math.max(this.events.get(eventId) ?? -Infinity, throughId));
  }
}
