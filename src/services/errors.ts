// The services' refusals. Each edge renders them its own way: a CLI line, a form error, a GraphQL error.

/** A refusal caused by the request, not a failure of the service. */
export class DomainError extends Error {}

/** Input that breaks a rule. `field` is the input's name as the service spells it (`starts_at`), when one is to blame. */
export class InvalidInput extends DomainError {
  constructor(
    /** The rule, without the field: "must be an email address". */
    readonly reason: string,
    readonly field?: string,
  ) {
    super(field ? `${field} ${reason}` : reason);
  }
}

/** What the input names does not exist. */
export class NotFound extends DomainError {}

/** The request clashes with what is stored: a duplicate, or a state that forbids it. */
export class Conflict extends DomainError {}

/** A bearer token that speaks for no one: unknown, expired, revoked, or its user or app no longer active. */
export class InvalidToken extends DomainError {
  constructor() {
    super('The access token is invalid, expired or revoked.');
  }
}
