import type { RegistrationResolvers } from '../../generated/graphql.js';
import { globalId } from '../../lib/ids.js';

export const Registration: RegistrationResolvers = {
  id: ({ row }) => globalId('Registration', row.id),
  createdAt: ({ row }) => new Date(row.createdAt),
};
