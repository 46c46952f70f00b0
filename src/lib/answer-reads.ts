/**
 * The registrations an answer read: a registration written later (anywhere) drops only the replayed answers
 * that read its event's registrations, its user's, or registrations by id (graphql/response-cache.ts).
 */
export class AnswerReads {
  /** Events whose registrations (a page, a count) the answer read. */
  readonly events = new Set<number>();
  /** Users whose registrations (where they are registered) the answer read. */
  readonly users = new Set<number>();
  /** Registrations by id, or the change log: any registration written may change the answer. */
  anyRegistration = false;
}
