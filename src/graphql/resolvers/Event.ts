import { ForbiddenError } from '../errors.js';
import type { EventResolvers } from '../../generated/graphql.js';
import { globalId } from '../../lib/ids.js';
import { pageRequest } from '../pagination.js';

const date = (ms: number | null) => (ms === null ? null : new Date(ms));

export const Event: EventResolvers = {
  id: (event) => globalId('Event', event.id),
  startsAt: (event) => date(event.startsAt),
  endsAt: (event) => date(event.endsAt),
  visibility: (event) => (event.visibility === 'private' ? 'PRIVATE' : 'PUBLIC'),
  async registrations(event, args, { access, services, cost }) {
    const readable = await access.registrations(event.id);
    if (!readable) {
      throw new ForbiddenError('Only the organizers of this event may read its registrations.');
    }
    const { size, ...range } = pageRequest(args, 'registrations');
    const page = await services.registrations.window(event.id, size, range);
    cost.nodes += page.rows.length;
    return { eventId: event.id, page, showEmail: readable.showEmail };
  },
};
