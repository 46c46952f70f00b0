import { useSeededServer } from '../helpers/fixtures.js';
import { changeFeed, seen, type ChangeNode, type Feed, type Token } from '../helpers/changes.js';
import { gql } from '../helpers/graphql.js';

// Query.changes over HTTP with real tokens: order, paging, endCursor, filters, who sees what, and
// objects in their current state. Refusals and expiry: changes-refusals.test.ts.
const t = useSeededServer();
const { feed, head } = changeFeed(t);

describe('reading the feed', () => {
  test('oldest first: every change of the seed, with its objects, to an organizer', async () => {
    const all = await feed('organizerUser');
    expect(seen(all)).toEqual([
      'EVENT_CREATED public-meetup',
      'EVENT_CREATED private-retreat',
      ...Array(5).fill('REGISTRATION_CREATED public-meetup'),
      'REGISTRATION_CREATED private-retreat',
    ]);
    expect(all.nodes.slice(2).map((n) => n.registrant!.name)).toEqual([
      ...t.fx.registrants.map((r) => r.name),
      'Ann Active',
    ]);
    expect(all.nodes[0]).toMatchObject({ event: { slug: 'public-meetup' }, registration: null, registrant: null });
    expect(all.nodes[2]!.registration!.id).toEqual(expect.any(String));
    expect(Math.abs(Date.parse(all.nodes[0]!.occurredAt) - Date.now())).toBeLessThan(60_000);
    expect(new Set(all.nodes.map((n) => n.id)).size).toBe(8);
    expect(all.pageInfo).toEqual({ endCursor: all.nodes[7]!.cursor, hasNextPage: false });
  });

  test('first and after page through the same changes, each page ending at its last cursor', async () => {
    const all = await feed('organizerUser');
    const ids: string[] = [];
    const sizes: number[] = [];
    let after: string | null = null;
    for (let more = true; more;) {
      const page: Feed = await feed('organizerUser', { first: 3, after });
      ids.push(...page.nodes.map((n) => n.id));
      sizes.push(page.nodes.length);
      expect(page.pageInfo.endCursor).toBe(page.nodes.at(-1)!.cursor);
      ({ endCursor: after, hasNextPage: more } = page.pageInfo);
    }
    expect(sizes).toEqual([3, 3, 2]);
    expect(ids).toEqual(all.nodes.map((n) => n.id));
  });

  test('endCursor is always set: an empty page ends where it started; first: 0 is the head, new changes follow it', async () => {
    const h = await head();
    expect(h).toBe((await feed('organizerUser')).pageInfo.endCursor);
    // The same request before and after a write: no answer is replayed from before it.
    expect(await feed('organizerUser', { after: h })).toMatchObject({
      nodes: [],
      pageInfo: { endCursor: h, hasNextPage: false },
    });
    await t.server.stores.registrations.create(t.fx.publicEvent.id, t.fx.organizer.id);
    const next = await feed('organizerUser', { after: h });
    expect(seen(next)).toEqual(['REGISTRATION_CREATED public-meetup']);
    expect(next.nodes[0]!.registrant!.name).toBe('Olive Organizer');
    expect(await head()).toBe(next.pageInfo.endCursor);
    expect((await feed('organizerUser', { after: h, first: 0 })).pageInfo.endCursor).toBe(h);
  });
});

describe('filters', () => {
  test.each([
    ['event', { event: 'private-retreat' }, (n: ChangeNode) => n.eventSlug === 'private-retreat'],
    ['types', { types: ['EVENT_CREATED'] }, (n: ChangeNode) => n.type === 'EVENT_CREATED'],
    [
      'event and types',
      { event: 'public-meetup', types: ['REGISTRATION_CREATED', 'EVENT_UPDATED'] },
      (n: ChangeNode) => n.eventSlug === 'public-meetup' && n.type === 'REGISTRATION_CREATED',
    ],
  ])('%s: the changes that match, in order', async (_name, variables, match) => {
    const all = await feed('organizerUser', { first: 1000 });
    const filtered = await feed('organizerUser', variables);
    expect(filtered.nodes.length).toBeGreaterThan(0);
    expect(filtered.nodes).toEqual(all.nodes.filter(match));
  });

  test('an event without changes (or none such): an empty page ending where it started', async () => {
    const h = await head();
    expect(await feed('organizerUser', { after: h, event: 'no-such-event' })).toMatchObject({
      nodes: [],
      pageInfo: { endCursor: h, hasNextPage: false },
    });
  });
});

describe('who sees what', () => {
  test.each(['otherUser', 'otherApp'] as const)(
    '%s: public events only, no registration changes, nothing of a private event',
    async (token) => {
      const h = await head();
      const { publicEvent, privateEvent, registrants } = t.fx;
      await t.server.stores.events.update(privateEvent.id, { slug: privateEvent.slug, name: `Retreat ${token}` });
      await t.server.stores.users.update(registrants[0]!.id, { name: `Ann ${token}` }); // at both events
      await t.server.stores.events.update(publicEvent.id, { slug: publicEvent.slug, name: `Meetup ${token}` });
      const outsider = await feed(token, { first: 1000 });
      expect([...new Set(seen(outsider))]).toEqual(['EVENT_CREATED public-meetup', 'EVENT_UPDATED public-meetup']);
      expect(outsider.text).not.toMatch(/private-retreat|Retreat|REGISTR/);
      expect(seen(await feed(token, { after: h }))).toEqual(['EVENT_UPDATED public-meetup']);
      expect(seen(await feed('organizerApp', { after: h }))).toEqual([
        'EVENT_UPDATED private-retreat',
        'REGISTRANT_UPDATED public-meetup',
        'REGISTRANT_UPDATED private-retreat',
        'EVENT_UPDATED public-meetup',
      ]);
    },
  );

  test('an outsider filtering by a private event’s slug learns what it learns of a slug no event has', async () => {
    const h = await head();
    const { privateEvent } = t.fx;
    for (const name of ['Retreat I', 'Retreat II']) {
      await t.server.stores.events.update(privateEvent.id, { slug: privateEvent.slug, name });
    }
    for (const token of ['otherUser', 'otherApp'] as const) {
      const secret = await feed(token, { after: h, event: 'private-retreat' });
      const none = await feed(token, { after: h, event: 'no-such-event' });
      expect(secret.text).toBe(none.text);
      // Both end at the head: a reader of one event keeps up with the log, and its cursor does not expire.
      expect(secret).toMatchObject({ nodes: [], pageInfo: { endCursor: await head(), hasNextPage: false } });
    }
  });

  test('registrant emails: to an organizer’s user token, never to an app token', async () => {
    const emails = async (token: Token) =>
      (await feed(token, { types: ['REGISTRATION_CREATED'], event: 'public-meetup' })).nodes.map(
        (n) => n.registrant!.email,
      );
    expect(await emails('organizerUser')).toEqual([
      'ann@example.com',
      'pat@example.com',
      'dee@example.com',
      null,
      'other@example.com',
      'Org@Example.com',
    ]);
    expect(await emails('organizerApp')).toEqual(Array(6).fill(null));
    expect((await feed('organizerApp', { first: 1000 })).text).not.toMatch(/@/);
  });

  test('a deleted event: its deletion to whoever could see it, a private one’s to its organizers only', async () => {
    const h = await head();
    const { events, users } = t.server.stores;
    const stranger = await users.create({ name: 'Stranger' });
    for (const [slug, visibility, organizer] of [
      ['secret-gala', 'private', t.fx.organizer.id],
      ['open-day', 'public', t.fx.organizer.id],
      ['strangers-party', 'private', stranger.id],
    ] as const) {
      const event = await events.create({ slug, name: slug, visibility, organizerIds: [organizer] });
      await events.delete(event.id);
    }
    for (const token of ['organizerUser', 'organizerApp'] as const) {
      const page = await feed(token, { after: h });
      expect(seen(page)).toEqual(['EVENT_DELETED secret-gala', 'EVENT_DELETED open-day']);
      expect(page.nodes.map((n) => n.event)).toEqual([null, null]);
    }
    for (const token of ['otherUser', 'otherApp'] as const) {
      const page = await feed(token, { after: h });
      expect(seen(page)).toEqual(['EVENT_DELETED open-day']);
      expect(page.text).not.toMatch(/secret-gala|strangers-party/);
    }
  });
});

describe('objects are their current state', () => {
  test('a renamed event and registrant show their new names; a removed registration is null', async () => {
    const { stores } = t.server;
    const org = t.fx.organizer;
    const event = await stores.events.create({ slug: 'renamed-later', name: 'Before', organizerIds: [org.id] });
    const who = await stores.users.create({ name: 'Reg Before' });
    await stores.registrations.create(event.id, who.id);
    await stores.events.update(event.id, { slug: event.slug, name: 'After' });
    await stores.users.update(who.id, { name: 'Reg After' });
    await stores.registrations.delete(event.id, who.id);
    const page = await feed('organizerUser', { event: 'renamed-later' });
    expect(seen(page)).toEqual(
      ['EVENT_CREATED', 'REGISTRATION_CREATED', 'EVENT_UPDATED', 'REGISTRANT_UPDATED', 'REGISTRATION_DELETED'].map(
        (type) => `${type} renamed-later`,
      ),
    );
    expect(page.nodes.map((n) => n.event?.name)).toEqual(Array(5).fill('After'));
    expect(page.nodes.map((n) => n.registration)).toEqual(Array(5).fill(null));
    expect(page.nodes.map((n) => n.registrant?.name ?? null)).toEqual([
      null,
      'Reg After',
      null,
      'Reg After',
      'Reg After',
    ]);
  });

  test('a live registration is the registration, read as the token may', async () => {
    const [created] = (await feed('organizerUser', { event: 'private-retreat', types: ['REGISTRATION_CREATED'] }))
      .nodes;
    const node = await gql(t.server, t.fx.tokens.organizerUser, 'query($id: ID!) { node(id: $id) { id } }', {
      id: created!.registration!.id,
    });
    expect(node.body).toEqual({ data: { node: { id: created!.registration!.id } } });
    expect(created!.registrant).toEqual({ name: expect.stringMatching(/^Ann/), email: 'ann@example.com' });
  });
});
