// What both plain peers share (plain.mjs on Fastify + Mercurius, plain-apollo.mjs on Express + Apollo
// Server): their own SDL and resolvers for the canonical query, their own statements over Roster's tables
// (plain-sqlite.mjs or plain-pg.mjs, by DATABASE_URL), bearer tokens looked up by SHA-256 and cached, and
// Roster's permission rules for this query checked on every request. Nothing of Roster's code.
import { createHash } from 'node:crypto';

const url = process.env.DATABASE_URL ?? '';
const { openData } = await import(url.startsWith('postgres') ? './plain-pg.mjs' : './plain-sqlite.mjs');
export const data = await openData(url);

export const schema = `
  type Query { event(slug: String!): Event }
  type Event { registrations(first: Int = 100): RegistrationConnection }
  type RegistrationConnection { nodes: [Registration!]! }
  type Registration { registrant: Registrant! }
  type Registrant { name: String! email: String activationState: String! }
`;

class GraphQLErrorWithCode extends Error {
  constructor(message, code) {
    super(message);
    this.extensions = { code };
  }
}

export const resolvers = {
  Query: {
    async event(_root, { slug }, { viewer }) {
      const event = await data.event(slug, viewer.actingUserId);
      // A private event is visible to its organizers only (an app token: its owner's).
      return event && (event.visibility === 'public' || event.organizer) ? event : null;
    },
  },
  Event: {
    async registrations(event, { first }, { viewer }) {
      if (!event.organizer) throw new GraphQLErrorWithCode('Only the organizers may read registrations.', 'FORBIDDEN');
      if (first < 0 || first > 1000) throw new GraphQLErrorWithCode('first: 0 to 1000.', 'BAD_USER_INPUT');
      const rows = await data.page(event.id, first);
      // Registrant emails go to an organizer's user token only, never to an app token.
      const showEmail = viewer.kind === 'user';
      return { nodes: rows.map((r) => ({ registrant: showEmail ? r : { ...r, email: null } })) };
    },
  },
};

// Resolved tokens by their hash, kept until the token expires (at most a minute).
const tokens = new Map();
const TOKEN_CACHE_MS = 60_000;

export async function viewerOf(authorization) {
  const token = /^Bearer (\S+)$/i.exec(authorization ?? '')?.[1];
  if (!token) return undefined;
  const hash = createHash('sha256').update(token).digest('hex');
  const now = Date.now();
  const hit = tokens.get(hash);
  if (hit && hit.until > now) return hit.viewer;
  const found = token.startsWith('rst_app_') ? await data.appToken(hash) : await data.userToken(hash, now);
  if (!found) return undefined;
  if (tokens.size >= 10_000) tokens.clear();
  tokens.set(hash, { viewer: found.viewer, until: Math.min(now + TOKEN_CACHE_MS, found.expiresAt ?? Infinity) });
  return found.viewer;
}

/** The Express peers' bearer check: the viewer on `req.viewer`, or a 401. */
export async function requireViewer(req, res, next) {
  req.viewer = await viewerOf(req.headers.authorization);
  if (!req.viewer) return void res.status(401).set('WWW-Authenticate', 'Bearer').json({ error: 'invalid_token' });
  next();
}
