import type { ChangeEdgeResolvers, ChangeResolvers, ChangeType as GraphqlChangeType } from '../../generated/graphql.js';
import { CHANGE_TYPES, type ChangeRow, type ChangeType } from '../../stores/change-store.js';
import { globalId } from '../../lib/ids.js';
import { registrantModel, registrationModel } from '../models.js';
import { encodeChangeCursor } from '../pagination.js';

/** `registration.created` ↔ `REGISTRATION_CREATED`. */
export const graphqlChangeType = (type: ChangeType): GraphqlChangeType =>
  type.replace('.', '_').toUpperCase() as GraphqlChangeType;

const BY_GRAPHQL = new Map(CHANGE_TYPES.map((t) => [graphqlChangeType(t), t]));
export const changeTypeOf = (type: GraphqlChangeType): ChangeType => BY_GRAPHQL.get(type)!;

const registrationChange = (change: ChangeRow) => change.type.startsWith('registration.');

export const Change: ChangeResolvers = {
  id: (change) => globalId('Change', change.position),
  cursor: (change) => encodeChangeCursor(change.position),
  type: (change) => graphqlChangeType(change.type),
  occurredAt: (change) => new Date(change.occurredAt),
  eventSlug: (change) => change.eventSlug,
  event: async (change, _args, { access }) => access.eventById(change.eventId),
  async registration(change, _args, { access, loaders }) {
    if (!registrationChange(change) || change.registrationId === null) return null;
    const readable = await access.registrations(change.eventId);
    const row = readable && (await loaders.registrationById.load(change.registrationId));
    return row && readable ? registrationModel(row, readable.showEmail) : null;
  },
  async registrant(change, _args, { access, loaders }) {
    if (change.userId === null) return null;
    const readable = await access.registrations(change.eventId);
    const user = readable && (await loaders.userById.load(change.userId));
    if (!user || !readable) return null;
    // The address only as the registrant's registrations show it now: none taken after they left.
    const now = readable.showEmail ? await access.registrant(user.id) : null;
    return registrantModel(user, now?.showEmail ?? false);
  },
};

export const ChangeEdge: ChangeEdgeResolvers = {
  cursor: (change) => encodeChangeCursor(change.position),
  node: (change) => change,
};
