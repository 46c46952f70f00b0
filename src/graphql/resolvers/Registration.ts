import type { RegistrationResolvers } from '../../generated/graphql.js';
import { globalId } from '../../lib/ids.js';
import { registrantModel } from '../models.js';

export const Registration: RegistrationResolvers = {
  id: ({ row }) => globalId('Registration', row.id),
  createdAt: ({ row }) => new Date(row.createdAt),
  // Read with the page, in the same statement; the email's access decided per connection.
  registrant: ({ row, showEmail }) => registrantModel(row.registrant, showEmail),
};
