import type { EventRow } from '../stores/types.js';
import { parseGlobalId } from '../lib/ids.js';
import type { GraphQLContext } from './context.js';
import { BadUserInputError } from './errors.js';
import { registrantModel, registrationModel, type RegistrantModel, type RegistrationModel } from './models.js';

export type NodeModel = EventRow | RegistrationModel | RegistrantModel;

/** `Query.nodes` takes at most this many ids: each is priced as one node. */
export const MAX_NODE_IDS = 100;

const UID = /^[A-Za-z0-9_-]{1,64}$/;

async function eventNode(id: number, { loaders, access }: GraphQLContext): Promise<EventRow | null> {
  return access.event(await loaders.eventById.load(id));
}

/** As `Event.registrations` reaches it: only for whoever may read that event's registrations. */
async function registrationNode(id: number, { services, access, info }: GraphQLContext) {
  // By id, missing ones too: any registration added or removed may change the answer.
  if (info.reads) info.reads.anyRegistration = true;
  const row = await services.registrations.findWithRegistrant(id);
  const readable = row && (await access.registrations(row.eventId));
  return readable ? registrationModel(row, readable.showEmail) : null;
}

/** As some event's registrations reach the user: the email when any such event would show it. */
async function registrantNode(uid: string, { services, access }: GraphQLContext) {
  const user = await services.users.findByKey(uid);
  const readable = user && (await access.registrant(user.id));
  if (!user || !readable) return null;
  return registrantModel(user, readable.showEmail);
}

/**
 * The object an id names, when the caller may reach it by another field; null otherwise (missing,
 * hidden and malformed ids look the same). Event and registration ids are global ids; a registrant's
 * id is its uid, so an id that is not an Event or Registration global id is taken as a uid.
 */
export async function lookupNode(id: string, context: GraphQLContext): Promise<NodeModel | null> {
  const global = parseGlobalId(id);
  if (global?.type === 'Event') return eventNode(global.id, context);
  if (global?.type === 'Registration') return registrationNode(global.id, context);
  return UID.test(id) ? registrantNode(id, context) : null;
}

export function lookupNodes(ids: readonly string[], context: GraphQLContext): Promise<(NodeModel | null)[]> {
  if (ids.length > MAX_NODE_IDS) {
    throw new BadUserInputError(`\`ids\` may list at most ${MAX_NODE_IDS} ids, got ${ids.length}.`, 'ids');
  }
  return Promise.all(ids.map((id) => lookupNode(id, context)));
}

/** The GraphQL type of a node model. */
export function nodeType(model: NodeModel): 'Event' | 'Registration' | 'Registrant' {
  if ('slug' in model) return 'Event';
  return 'row' in model ? 'Registration' : 'Registrant';
}
