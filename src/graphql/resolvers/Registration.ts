import type { RegistrantResolvers, RegistrationResolvers } from '../../generated/graphql.js';
import { globalId } from '../../lib/ids.js';

export const Registration: RegistrationResolvers = {
  id: ({ row }) => globalId('Registration', row.id),
  createdAt: ({ row }) => new Date(row.createdAt),
  // Read with the page, in the same statement.
  registrant: ({ row, showEmail }) => ({ user: row.registrant, showEmail }),
};

export const Registrant: RegistrantResolvers = {
  id: ({ user }) => user.uid,
  name: ({ user }) => user.name,
  // Access decided per connection: an organizer's user token only.
  email: ({ user, showEmail }) => (showEmail ? user.email : null),
  activationState: ({ user }) => user.activationState,
};
