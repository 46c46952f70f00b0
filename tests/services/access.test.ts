import { createAccess } from '../../src/services/access.js';
import { createServices, type Services } from '../../src/services/services.js';
import type { Viewer } from '../../src/services/viewer.js';
import type { EventRow, UserRow } from '../../src/stores/types.js';
import { startServer, type TestServer } from '../helpers/harness.js';

// Visibility is one rule (services/policy.ts), applied by services/access.ts to single rows and written once
// more as the store's query of visible pages, for speed. Both must agree for every kind of viewer.
let server: TestServer;
let services: Services;
let users: UserRow[];
let events: EventRow[];

beforeAll(async () => {
  server = await startServer();
  services = createServices(server.stores);
  const { stores } = server;
  users = [];
  for (const name of ['Ada', 'Bo', 'Cy']) users.push(await stores.users.create({ email: `${name}@x.test`, name }));
  const [ada, bo, cy] = users as [UserRow, UserRow, UserRow];
  const plan: [string, 'public' | 'private', UserRow[]][] = [
    ['open-ada', 'public', [ada]],
    ['closed-ada', 'private', [ada]],
    ['closed-bo', 'private', [bo]],
    ['closed-both', 'private', [ada, bo]],
    ['open-cy', 'public', [cy]],
    ['closed-cy', 'private', [cy]],
  ];
  events = [];
  for (const [slug, visibility, organizers] of plan) {
    events.push(
      await stores.events.create({ slug, name: slug, visibility, organizerIds: organizers.map((u) => u.id) }),
    );
  }
  await stores.registrations.create(events[1]!.id, cy.id); // Cy is registered for closed-ada only
});
afterAll(async () => {
  await services?.close();
  await server?.close();
});

const viewers = (): [string, Viewer][] =>
  users.flatMap((u, i): [string, Viewer][] => [
    [
      `${u.name}'s user token`,
      { kind: 'user', userId: u.id, uid: u.uid, appId: i, clientId: `c${i}`, appName: 'A', scopes: ['openid'] },
    ],
    [`${u.name}'s app`, { kind: 'app', appId: i, clientId: `c${i}`, appName: 'A', ownerId: u.id, scopes: [] }],
  ]);

const accessOf = (viewer: Viewer) =>
  createAccess(viewer, {
    eventById: async (id) => (await services.events.findByIdsWithOrganizers([id]))[0] ?? null,
    organizerIds: async (id) => (await services.events.organizerIds([id])).get(id) ?? [],
    registeredEventIds: async (id) => (await services.registrations.eventIdsOfMany([id])).get(id) ?? [],
  });

test('the visible-events query shows exactly the events the rule lets each viewer see', async () => {
  for (const [name, viewer] of viewers()) {
    const access = accessOf(viewer);
    const byRule = (await Promise.all(events.map((e) => access.event(e)))).filter((e) => e !== null).map((e) => e.slug);
    const byQuery = (await services.events.visiblePage(viewer, 100, null)).rows.map((e) => e.slug);
    expect({ name, slugs: byQuery }).toEqual({ name, slugs: byRule });
    expect(byRule.length).toBeGreaterThanOrEqual(2);
  }
});

test('registrations and registrants: organizers read them, only their user tokens read emails', async () => {
  const [ada, bo, cy] = users as [UserRow, UserRow, UserRow];
  const closedAda = events[1]!;
  const userOf = (u: UserRow) => viewers().find(([n]) => n === `${u.name}'s user token`)![1];
  const appOf = (u: UserRow) => viewers().find(([n]) => n === `${u.name}'s app`)![1];
  await expect(accessOf(userOf(ada)).registrations(closedAda.id)).resolves.toEqual({ showEmail: true });
  await expect(accessOf(appOf(ada)).registrations(closedAda.id)).resolves.toEqual({ showEmail: false });
  await expect(accessOf(userOf(bo)).registrations(closedAda.id)).resolves.toBeNull();
  await expect(accessOf(userOf(ada)).registrant(cy.id)).resolves.toEqual({ showEmail: true });
  await expect(accessOf(appOf(ada)).registrant(cy.id)).resolves.toEqual({ showEmail: false });
  // Cy organizes events but is registered for none of Bo's: Bo reaches Cy through no registration list.
  await expect(accessOf(userOf(bo)).registrant(cy.id)).resolves.toBeNull();
  await expect(accessOf(userOf(cy)).event(null)).resolves.toBeNull();
});
