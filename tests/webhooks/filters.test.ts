import { useSeededServer } from '../helpers/fixtures.js';
import { appIdOf, changePosition, hookReceiver, settled, verified, type HookReceiver } from '../helpers/webhooks.js';

// A webhook's filters (types, one event) decide which changes are queued for it, and a webhook hears only of
// changes committed after it was created.
const t = useSeededServer();
let receiver: HookReceiver;
beforeAll(async () => {
  receiver = await hookReceiver();
});
afterAll(() => receiver.close());

/** A webhook of orgApp whose deliveries reach the receiver at `/hook?w=<name>`. */
async function webhook(name: string, filter: { types?: string[]; event?: string } = {}) {
  const { webhook, secret } = await t.server.services.webhooks.create({
    appId: await appIdOf(t.server.stores, t.fx.orgApp.clientId),
    url: `${receiver.url}?w=${name}`,
    ...filter,
  });
  return { id: webhook.id, secret, name };
}

/** `type slug` of what reached the receiver for one webhook, verified with its secret, in change order. */
function got(hook: { secret: string; name: string }): string[] {
  return receiver.received
    .filter((r) => r.path === `/hook?w=${hook.name}`)
    .map((r) => verified(hook.secret, r))
    .sort((a, b) => changePosition(a.data.cursor!) - changePosition(b.data.cursor!))
    .map((p) => `${p.type} ${p.data.event!.slug}`);
}

test('by type, by event, by both: only the matching changes are queued and sent', async () => {
  const hooks = {
    all: await webhook('all'),
    types: await webhook('types', { types: ['registration.created', ' registration.created'] }),
    event: await webhook('event', { event: 'public-meetup' }),
    both: await webhook('both', { types: ['registrant.updated', 'registration.deleted'], event: 'private-retreat' }),
  };
  const { stores } = t.server;
  const { publicEvent, privateEvent } = t.fx;
  const user = await stores.users.create({ name: 'Filter Fred' });
  await stores.registrations.create(publicEvent.id, user.id);
  await stores.registrations.create(privateEvent.id, user.id);
  await stores.users.update(user.id, { name: 'Filter Fred II' });
  await stores.registrations.delete(privateEvent.id, user.id);
  await stores.events.update(publicEvent.id, { slug: 'public-meetup', name: 'Public Meetup (filtered)' });
  await stores.events.create({ slug: 'filter-new', name: 'New', organizerIds: [t.fx.organizer.id] });
  t.server.nudgeWebhooks();

  const expected = {
    all: [
      'registration.created public-meetup',
      'registration.created private-retreat',
      'registrant.updated public-meetup',
      'registrant.updated private-retreat',
      'registration.deleted private-retreat',
      'event.updated public-meetup',
      'event.created filter-new',
    ],
    types: ['registration.created public-meetup', 'registration.created private-retreat'],
    event: ['registration.created public-meetup', 'registrant.updated public-meetup', 'event.updated public-meetup'],
    both: ['registrant.updated private-retreat', 'registration.deleted private-retreat'],
  };
  for (const [name, hook] of Object.entries(hooks)) {
    const want = expected[name as keyof typeof expected];
    // Only what matched was ever queued: as many deliveries as expected, all delivered.
    const deliveries = await settled(t.server.services, hook.id, want.length);
    expect(deliveries.map((d) => d.state)).toEqual(want.map(() => 'delivered'));
    expect(got(hook)).toEqual(want);
  }
});

test('a webhook created after a change gets none of it, only what comes after', async () => {
  const { stores } = t.server;
  const early = await stores.users.create({ name: 'Before The Hook' });
  await stores.registrations.create(t.fx.publicEvent.id, early.id);
  const late = await webhook('late');
  const after = await stores.users.create({ name: 'After The Hook' });
  await stores.registrations.create(t.fx.publicEvent.id, after.id);
  t.server.nudgeWebhooks();

  const [only] = await settled(t.server.services, late.id, 1);
  expect(only!.state).toBe('delivered');
  const payloads = receiver.received.filter((r) => r.path === '/hook?w=late').map((r) => verified(late.secret, r));
  expect(payloads.map((p) => p.data.registrant!.name)).toEqual(['After The Hook']);
});
