import { useSeededServer } from '../helpers/fixtures.js';
import { until } from '../helpers/wait.js';
import { appIdOf, changePosition, hookReceiver, settled, verified, type HookReceiver } from '../helpers/webhooks.js';

// A delivery carries only what the app's own token may read, decided when it is sent: otherApp (whose owner
// organizes none of the fixtures' events) hears of public events alone, and of registrations only at the
// event its owner organizes; a suspended app (its owner not active) is sent nothing.
const t = useSeededServer({ WEBHOOK_RETRY_SCHEDULE: '1s' });
let receiver: HookReceiver;
beforeAll(async () => {
  receiver = await hookReceiver();
});
afterAll(() => receiver.close());

async function webhook(clientId: string, name: string) {
  const { webhook, secret } = await t.server.services.webhooks.create({
    appId: await appIdOf(t.server.stores, clientId),
    url: `${receiver.url}?w=${name}`,
  });
  return { id: webhook.id, secret, name };
}

/** `type slug registrant` of each delivery that reached a webhook, verified with its secret, oldest change first. */
const got = (hook: { secret: string; name: string }) =>
  receiver.received
    .filter((r) => r.path === `/hook?w=${hook.name}`)
    .map((r) => verified(hook.secret, r))
    .sort((a, b) => changePosition(a.data.cursor!) - changePosition(b.data.cursor!))
    .map((p) => [p.type, p.data.event?.slug, p.data.registrant?.name ?? '-'].join(' '));

test('another app: public events only, and registrations only of the event its owner organizes', async () => {
  const { stores } = t.server;
  const { publicEvent, privateEvent, organizer, other, registrants } = t.fx;
  const org = await webhook(t.fx.orgApp.clientId, 'org-1');
  const others = await webhook(t.fx.otherApp.clientId, 'other-1');
  // otherApp's owner organizes this one.
  const own = await stores.events.create({ slug: 'others-own', name: "Other's Own", organizerIds: [other.id] });
  const guest = await stores.users.create({ email: 'perm.guest@example.com', name: 'Perm Guest' });
  await stores.registrations.create(publicEvent.id, guest.id);
  await stores.registrations.create(privateEvent.id, guest.id);
  await stores.registrations.create(own.id, guest.id);
  // Ann is at the public and the private event; otherApp's owner is a registrant of the public one.
  await stores.users.update(registrants[0]!.id, { name: 'Ann Perm' });
  await stores.users.update(other.id, { name: 'Otto Perm' });
  await stores.events.update(privateEvent.id, { slug: privateEvent.slug, name: 'Private Retreat (renamed)' });
  await stores.events.update(publicEvent.id, { slug: publicEvent.slug, name: 'Public Meetup (renamed)' });
  await stores.events.create({
    slug: 'perm-hidden',
    name: 'Hidden',
    visibility: 'private',
    organizerIds: [organizer.id],
  });
  await stores.registrations.delete(privateEvent.id, guest.id);
  t.server.nudgeWebhooks();

  // Queued for otherApp: only what it could see as it happened (any event's creation is queued: its organizers
  // come just after); the private event's creation it may not see is skipped at send time, never sent.
  const deliveries = await settled(t.server.services, others.id, 4);
  expect(got(others)).toEqual([
    'event.created others-own -',
    'registration.created others-own Perm Guest',
    'event.updated public-meetup -',
  ]);
  expect(deliveries.filter((d) => d.state === 'delivered')).toHaveLength(3);
  const skipped = deliveries.filter((d) => d.state === 'skipped');
  expect(skipped).toHaveLength(1);
  for (const d of skipped) {
    expect(d.attempts).toBe(0);
    expect(d.lastError).toBe('the app may not see this change now');
  }
  expect((await t.server.services.webhooks.history(others.id)).attempts).toHaveLength(3);
  // The organizer's app hears of all of it but the registration at the event its owner does not organize,
  // which is not even queued for it.
  const orgs = await settled(t.server.services, org.id, 10);
  expect(orgs.filter((d) => d.state !== 'delivered')).toEqual([]);
  expect(orgs.map((d) => d.changePosition)).not.toContain(
    deliveries.filter((d) => d.state === 'delivered')[1]!.changePosition,
  );
  expect(got(org)).toHaveLength(10);
  expect(got(org)).not.toContain('registration.created others-own Perm Guest');
  expect(got(org)).toEqual(
    expect.arrayContaining([
      'registration.created private-retreat Perm Guest',
      'registrant.updated private-retreat Ann Perm',
      'event.created perm-hidden -',
      'registration.deleted private-retreat Perm Guest',
    ]),
  );
});

test('a private event made public: its changes reach another app from then on, not before', async () => {
  const { stores } = t.server;
  const { organizer } = t.fx;
  const others = await webhook(t.fx.otherApp.clientId, 'other-2');
  const event = await stores.events.create({
    slug: 'perm-reveal',
    name: 'Reveal',
    visibility: 'private',
    organizerIds: [organizer.id],
  });
  await stores.events.update(event.id, { slug: 'perm-reveal', name: 'Reveal (draft)' });
  t.server.nudgeWebhooks();
  // Its creation is queued (and skipped: private); the draft's update, which it could not see, is not queued.
  await settled(t.server.services, others.id, 1);
  await stores.events.update(event.id, { slug: 'perm-reveal', visibility: 'public' });
  t.server.nudgeWebhooks();
  const deliveries = await settled(t.server.services, others.id, 2);
  expect(deliveries.map((d) => d.state)).toEqual(['skipped', 'delivered']);
  expect(got(others)).toEqual(['event.updated perm-reveal -']);
});

test('what the app could see when it changed but not when retried is not sent again', async () => {
  const { stores } = t.server;
  const others = await webhook(t.fx.otherApp.clientId, 'other-3');
  // Its first attempts are held open, then answered 503 once the event is private: the retries come after.
  receiver.answer = (r) => (r.path === '/hook?w=other-3' ? 'hold' : 204);
  const event = await stores.events.create({ slug: 'perm-hide', name: 'Hide', organizerIds: [t.fx.organizer.id] });
  await stores.events.update(event.id, { slug: 'perm-hide', name: 'Hide Me' });
  t.server.nudgeWebhooks();
  await until(() => receiver.held.length === 2, 'the first attempts in flight');
  await stores.events.update(event.id, { slug: 'perm-hide', visibility: 'private' });
  receiver.answer = () => 204;
  receiver.releaseHeld(503);
  t.server.nudgeWebhooks();
  // The update that made it private is not queued for otherApp; the two it saw are not sent again.
  const deliveries = await settled(t.server.services, others.id, 2);
  expect(deliveries.map((d) => [d.state, d.attempts])).toEqual([
    ['skipped', 1],
    ['skipped', 1],
  ]);
  expect(got(others)).toHaveLength(2);
});

test('an app whose owner is deactivated has nothing queued until the owner is active again', async () => {
  const { stores } = t.server;
  const { organizer, publicEvent } = t.fx;
  const org = await webhook(t.fx.orgApp.clientId, 'org-suspended');
  await stores.users.setActivationState(organizer.id, 'deactivated');
  try {
    const guest = await stores.users.create({ name: 'Suspended Guest' });
    await stores.registrations.create(publicEvent.id, guest.id);
    await stores.events.update(publicEvent.id, { slug: publicEvent.slug, name: 'Public Meetup (while suspended)' });
    // Nothing is queued for a suspended app: the queue is written in the writes' own transactions, so there is
    // nothing to wait for (what was queued before is skipped when sent: hardening.test.ts).
    expect((await t.server.services.webhooks.history(org.id)).deliveries).toEqual([]);
    expect(got(org)).toEqual([]);
  } finally {
    await stores.users.setActivationState(organizer.id, 'active');
  }
  const back = await stores.users.create({ name: 'Welcome Back' });
  await stores.registrations.create(publicEvent.id, back.id);
  t.server.nudgeWebhooks();
  expect((await settled(t.server.services, org.id, 1))[0]!.state).toBe('delivered');
  expect(got(org)).toEqual(['registration.created public-meetup Welcome Back']);
});
