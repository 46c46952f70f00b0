import { GraphQLError } from 'graphql';

// One class per GraphQL error code we raise ourselves; Apollo supplies the parse/validation ones.

export class ForbiddenError extends GraphQLError {
  constructor(message: string) {
    super(message, { extensions: { code: 'FORBIDDEN' } });
  }
}

export class ChangesExpiredError extends GraphQLError {
  constructor(message: string) {
    super(message, { extensions: { code: 'CHANGES_EXPIRED', argumentName: 'after' } });
  }
}

export class BadUserInputError extends GraphQLError {
  constructor(message: string, argumentName?: string) {
    super(message, { extensions: { code: 'BAD_USER_INPUT', ...(argumentName ? { argumentName } : {}) } });
  }
}
