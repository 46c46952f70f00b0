import type { SubscriptionResolvers } from '../../generated/graphql.js';
import type { ChangeRow } from '../../stores/change-store.js';
import { liveChanges, StreamEnd } from '../stream/live-changes.js';

export const Subscription: SubscriptionResolvers = {
  changes: {
    subscribe: (_parent, args, ctx) => liveChanges(args, ctx),
    // Each value the stream yields is a change, or the reason it ends (the field's error, then `complete`).
    resolve: (value: ChangeRow | StreamEnd) => {
      if (value instanceof StreamEnd) throw value.error;
      return value;
    },
  },
};
