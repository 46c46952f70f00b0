import type { RegistrantResolvers, RegistrationResolvers } from '../../generated/graphql.js';
import { globalId } from '../models.js';

export const Registration: RegistrationResolvers = {
  id: ({ row }) => globalId('Registration', row.id),
  createdAt: ({ row }) => new Date(row.createdAt),
  async registrant({ row, showEmail }, _args, { loaders }) {
    const user = await loaders.userById.load(row.userId);
    if (!user) throw new Error(`registrant ${row.userId} of registration ${row.id} is gone`);
    return { user, showEmail };
  },
};

export const Registrant: RegistrantResolvers = {
  id: ({ user }) => user.uid,
  name: ({ user }) => user.name,
  // The policy decided per connection (SPEC §3): an organizer's user token only.
  email: ({ user, showEmail }) => (showEmail ? user.email : null),
  activationState: ({ user }) => user.activationState,
};
