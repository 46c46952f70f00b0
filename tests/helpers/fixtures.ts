import type { EventRow, UserRow } from '../../src/stores/types.js';
import { mintAccessToken } from '../../src/oidc/mint-token.js';
import { chunks } from '../../src/stores/chunks.js';
import { startServer, type TestServer } from './harness.js';
import type { Logger } from 'pino';

export interface Fixtures {
  organizer: UserRow;
  other: UserRow;
  registrants: UserRow[];
  publicEvent: EventRow;
  privateEvent: EventRow;
  orgApp: { clientId: string; clientSecret: string; appToken: string };
  otherApp: { clientId: string; clientSecret: string; appToken: string };
  tokens: {
    /** User token of an organizer (scopes openid email profile), issued to orgApp. */
    organizerUser: string;
    /** User token of a user who organizes nothing, issued to otherApp. */
    otherUser: string;
    /** App token of orgApp, owned by the organizer. */
    organizerApp: string;
    /** App token of otherApp, owned by the other user. */
    otherApp: string;
  };
}

/**
 * Known data: an organizer and another user; a public event (5 registrants, one without email)
 * and a private one (1 registrant), both organized by the organizer; an app of each user.
 */
export async function seedFixtures(server: TestServer): Promise<Fixtures> {
  const { users, events, registrations, apps } = server.stores;
  const organizer = await users.create({
    email: 'Org@Example.com',
    emailVerified: true,
    name: 'Olive Organizer',
    picture: 'https://example.com/olive.png',
    zoneinfo: 'Europe/Paris',
  });
  const other = await users.create({ email: 'other@example.com', name: 'Otto Other' });
  const registrants = [
    await users.create({ email: 'ann@example.com', name: 'Ann Active', activationState: 'active' }),
    await users.create({ email: 'pat@example.com', name: 'Pat Pending', activationState: 'pending' }),
    await users.create({ email: 'dee@example.com', name: 'Dee Deactivated', activationState: 'deactivated' }),
    await users.create({ email: null, name: 'Nora No-Email' }),
    other,
  ];
  const publicEvent = await events.create({
    slug: 'public-meetup',
    name: 'Public Meetup',
    organizerIds: [organizer.id],
  });
  const privateEvent = await events.create({
    slug: 'private-retreat',
    name: 'Private Retreat',
    visibility: 'private',
    organizerIds: [organizer.id],
  });
  for (const r of registrants) await registrations.create(publicEvent.id, r.id);
  await registrations.create(privateEvent.id, registrants[0]!.id);

  const createApp = async (ownerId: number, name: string) => {
    const made = await apps.create({ ownerId, name, redirectUris: ['http://localhost:3000/callback'] });
    return { clientId: made.app.clientId, clientSecret: made.clientSecret!, appToken: made.appToken };
  };
  const orgApp = await createApp(organizer.id, 'Organizer Badge Printer');
  const otherApp = await createApp(other.id, 'Other CRM');
  const scope = 'openid email profile';
  const organizerUser = (
    await mintAccessToken(server.provider, { accountId: organizer.uid, clientId: orgApp.clientId, scope })
  ).access_token;
  const otherUser = (
    await mintAccessToken(server.provider, { accountId: other.uid, clientId: otherApp.clientId, scope })
  ).access_token;
  return {
    organizer,
    other,
    registrants,
    publicEvent,
    privateEvent,
    orgApp,
    otherApp,
    tokens: { organizerUser, otherUser, organizerApp: orgApp.appToken, otherApp: otherApp.appToken },
  };
}

/** Starts a server with the fixtures for the enclosing test file; fields are set in beforeAll. */
export function useSeededServer(
  env: NodeJS.ProcessEnv = {},
  options: { logger?: Logger } = {},
): { server: TestServer; fx: Fixtures } {
  const ctx = {} as { server: TestServer; fx: Fixtures };
  beforeAll(async () => {
    ctx.server = await startServer(env, options);
    ctx.fx = await seedFixtures(ctx.server);
  });
  afterAll(() => ctx.server.close());
  return ctx;
}

/** Registers `count` new users named `${name} ${i}` (i zero-padded to `pad`) for an event, in bulk. */
export async function addRegistrants(
  server: TestServer,
  eventId: number,
  count: number,
  { prefix, name, pad = 0 }: { prefix: string; name: string; pad?: number },
): Promise<void> {
  const { db } = server;
  const now = Date.now();
  const users = Array.from({ length: count }, (_, i) => ({
    uid: `u_${prefix}_${i}`,
    email: `${prefix}${i}@example.com`,
    email_normalized: `${prefix}${i}@example.com`,
    email_verified: false,
    name: `${name} ${String(i).padStart(pad, '0')}`,
    activation_state: 'active',
    created_at: now,
    updated_at: now,
  }));
  await db.batchInsert('users', users, 200);
  // By exact uid, not `LIKE 'u_<prefix>_%'`: there `_` matches any character, and a seeded user's random uid can too.
  const ids: number[] = [];
  for (const part of chunks(users.map((u) => u.uid))) {
    ids.push(...(await db('users').whereIn('uid', part).orderBy('id').pluck('id')).map(Number));
  }
  await db.batchInsert(
    'registrations',
    ids.map((id) => ({ event_id: eventId, user_id: id, created_at: now })),
    200,
  );
}
