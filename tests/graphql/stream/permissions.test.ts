import { changeFeed } from '../../helpers/changes.js';
import { useSeededServer } from '../../helpers/fixtures.js';
import { closeStreams, nextsOf, openStream, payloadOf, type RawStream } from '../../helpers/streams.js';

// A stream shows what its token may see, as Query.changes does: never an email to an app token, nothing of a
// private event to an outsider, objects as they are when sent, and rights as they stand at each change.
const t = useSeededServer();
const { feed, head } = changeFeed(t);
afterEach(closeStreams);

const summary = (stream: RawStream) =>
  nextsOf(stream.events).map((e) => {
    const c = payloadOf(e).data!.changes;
    return `${c.type} ${c.eventSlug}`;
  });

let n = 0;
const newUser = () => {
  n += 1;
  return t.server.stores.users.create({ email: `perm${n}@example.com`, name: `Perm ${n}` });
};

let renames = 0;

/** Renames the public event (every token sees it): once it arrives, every change before it was judged. */
const sentinel = async (streams: RawStream[], count: number[]) => {
  const { publicEvent } = t.fx;
  await t.server.stores.events.update(publicEvent.id, { slug: publicEvent.slug, name: `Public Meetup ${++renames}` });
  await Promise.all(
    streams.map((s, i) =>
      s.until(() => summary(s).filter((x) => x === 'EVENT_UPDATED public-meetup').length >= count[i]!, 'sentinel'),
    ),
  );
};

test('an app token never receives an email address; the organizer’s user token does, on the same changes', async () => {
  const [user, app] = await Promise.all([
    openStream(t.server, t.fx.tokens.organizerUser),
    openStream(t.server, t.fx.tokens.organizerApp),
  ]);
  const guest = await newUser();
  await t.server.stores.registrations.create(t.fx.privateEvent.id, guest.id);
  // Each sent before the next write: a change shows its registrant as they are when it is sent.
  await Promise.all([user.next(1, 2000), app.next(1, 2000)]);
  await t.server.stores.users.update(guest.id, { email: 'perm-renamed@example.com' });
  await Promise.all([user.next(2, 2000), app.next(2, 2000)]);
  const emails = (s: RawStream) =>
    nextsOf(s.events).map((e) => (payloadOf(e).data!.changes.registrant as { email: string | null }).email);
  expect(emails(user)).toEqual(['perm1@example.com', 'perm-renamed@example.com']);
  expect(emails(app)).toEqual([null, null]);
  expect(app.events.map((e) => e.data).join('\n')).not.toMatch(/@/);
  expect(summary(app)).toEqual(summary(user));
});

test.each(['otherUser', 'otherApp'] as const)(
  '%s: the public event’s changes but no registrations, nothing of the private event',
  async (token) => {
    const { stores } = t.server;
    const gala = await stores.events.create({
      slug: `gala-${token.toLowerCase()}`,
      name: 'Gala',
      visibility: 'private',
      organizerIds: [t.fx.organizer.id],
    });
    const [outsider, organizer] = await Promise.all([
      openStream(t.server, t.fx.tokens[token]),
      openStream(t.server, t.fx.tokens.organizerUser),
    ]);
    const secret = await openStream(t.server, t.fx.tokens[token], {
      query: 'subscription { changes(event: "private-retreat") { cursor } }',
    });
    const { publicEvent, privateEvent } = t.fx;
    const guest = await newUser();
    await stores.registrations.create(privateEvent.id, guest.id);
    await stores.registrations.create(publicEvent.id, guest.id);
    await stores.events.update(privateEvent.id, { slug: privateEvent.slug, name: `Retreat ${token}` });
    await stores.users.update(guest.id, { name: `Guest ${token}` });
    await stores.events.delete(gala.id);
    await sentinel([outsider, organizer], [1, 1]);
    expect(summary(outsider)).toEqual(['EVENT_UPDATED public-meetup']);
    expect(outsider.events.map((e) => e.data).join('\n')).not.toMatch(/private-retreat|Retreat|gala|Guest|@/);
    expect(summary(organizer)).toEqual([
      'REGISTRATION_CREATED private-retreat',
      'REGISTRATION_CREATED public-meetup',
      'EVENT_UPDATED private-retreat',
      'REGISTRANT_UPDATED private-retreat',
      'REGISTRANT_UPDATED public-meetup',
      `EVENT_DELETED ${gala.slug}`,
      'EVENT_UPDATED public-meetup',
    ]);
    // A stream of the private event's slug gets what a slug no event has: nothing, and stays open.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(secret.events).toEqual([]);
    expect(secret.done).toBe(false);
  },
);

test('objects are as they are when sent: a resumed stream shows new names and a removed registration as null', async () => {
  const mark = await head();
  const { stores } = t.server;
  const event = await stores.events.create({
    slug: 'renamed-later',
    name: 'Before',
    organizerIds: [t.fx.organizer.id],
  });
  const who = await newUser();
  await stores.registrations.create(event.id, who.id);
  await stores.events.update(event.id, { slug: event.slug, name: 'After' });
  await stores.users.update(who.id, { name: 'Reg After' });
  await stores.registrations.delete(event.id, who.id);
  const stream = await openStream(
    t.server,
    t.fx.tokens.organizerUser,
    {
      query:
        'subscription { changes(event: "renamed-later") { cursor type event { name } registration { id } registrant { name } } }',
    },
    { 'Last-Event-ID': mark },
  );
  const events = await stream.next(5, 3000);
  const changes = events.map((e) => payloadOf(e).data!.changes);
  const page = await feed('organizerUser', { after: mark, event: 'renamed-later' });
  expect(changes.map((c) => c.cursor)).toEqual(page.nodes.map((c) => c.cursor));
  expect(changes.map((c) => (c.event as { name: string }).name)).toEqual(Array(5).fill('After'));
  expect(changes.map((c) => c.registration)).toEqual(Array(5).fill(null));
  expect(changes.map((c) => (c.registrant as { name: string } | null)?.name ?? null)).toEqual([
    null,
    'Reg After',
    null,
    'Reg After',
    'Reg After',
  ]);
});

test('rights as they stand at each change: an outsider made organizer sees the private event, until removed', async () => {
  const { stores } = t.server;
  const { publicEvent, privateEvent, organizer, other } = t.fx;
  const stream = await openStream(t.server, t.fx.tokens.otherUser);
  const [before, during, after] = [await newUser(), await newUser(), await newUser()];
  await stores.registrations.create(privateEvent.id, before.id);
  await sentinel([stream], [1]);
  await stores.events.setOrganizers(privateEvent.id, [organizer.id, other.id]);
  await stores.registrations.create(privateEvent.id, during.id);
  await sentinel([stream], [2]);
  await stores.events.setOrganizers(privateEvent.id, [organizer.id]);
  await stores.registrations.create(privateEvent.id, after.id);
  await stores.registrations.create(publicEvent.id, after.id);
  await sentinel([stream], [3]);
  expect(summary(stream)).toEqual([
    'EVENT_UPDATED public-meetup',
    'EVENT_UPDATED private-retreat',
    'REGISTRATION_CREATED private-retreat',
    'EVENT_UPDATED public-meetup',
    'EVENT_UPDATED public-meetup',
  ]);
  const shown = payloadOf(nextsOf(stream.events)[2]!).data!.changes;
  expect(shown.registrant).toEqual({ name: during.name, email: during.email });
});
