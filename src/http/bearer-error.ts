import { InvalidToken } from '../services/errors.js';

/** An RFC 6750 refusal as the bearer routes send it: a status, a `WWW-Authenticate: Bearer` header and a body. */
export class BearerError extends Error {
  constructor(
    readonly status: 401 | 403 | 400,
    /** RFC 6750 error code; absent when no credentials were sent at all. */
    readonly error: 'invalid_token' | 'insufficient_scope' | 'invalid_request' | undefined,
    message: string,
    readonly scope?: string,
  ) {
    super(message);
  }

  get wwwAuthenticate(): string {
    const parts = ['realm="roster"'];
    if (this.error) parts.push(`error="${this.error}"`, `error_description="${this.message}"`);
    if (this.scope) parts.push(`scope="${this.scope}"`);
    return `Bearer ${parts.join(', ')}`;
  }

  /** GraphQL-facing code of the same failure. */
  get code(): string {
    return this.status === 403 ? 'FORBIDDEN' : 'UNAUTHENTICATED';
  }
}

export const missingToken = (): BearerError =>
  new BearerError(401, undefined, 'This endpoint needs a bearer token in the Authorization header.');
export const malformedAuthorization = (): BearerError =>
  new BearerError(401, 'invalid_token', 'The Authorization header must be "Bearer <token>".');
export const invalidToken = (): BearerError => new BearerError(401, 'invalid_token', new InvalidToken().message);
export const insufficientScope = (scope: string): BearerError =>
  new BearerError(403, 'insufficient_scope', `The token was not granted the ${scope} scope.`, scope);
