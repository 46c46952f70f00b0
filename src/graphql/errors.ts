import { GraphQLError } from 'graphql';

// One class per GraphQL error code we raise ourselves; Apollo supplies the parse/validation ones.

export class ForbiddenError extends GraphQLError {
  constructor(message: string) {
    super(message, { extensions: { code: 'FORBIDDEN' } });
  }
}

export class ChangesExpiredError extends GraphQLError {
  /** `argumentName`: where the cursor came from (`after`, or the `Last-Event-ID` of a stream). */
  constructor(message: string, argumentName = 'after') {
    super(message, { extensions: { code: 'CHANGES_EXPIRED', argumentName } });
  }
}

export class BadUserInputError extends GraphQLError {
  constructor(message: string, argumentName?: string) {
    super(message, { extensions: { code: 'BAD_USER_INPUT', ...(argumentName ? { argumentName } : {}) } });
  }
}
