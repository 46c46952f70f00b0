import type { RateLimitResolvers } from '../../generated/graphql.js';

export const RateLimit: RateLimitResolvers = {
  resetAt: (state) => new Date(state.resetAt),
};
