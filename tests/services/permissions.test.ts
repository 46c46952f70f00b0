import { startServer, type TestServer } from '../helpers/harness.js';
import { seedFixtures, useSeededServer, type Fixtures } from '../helpers/fixtures.js';
import { gql } from '../helpers/graphql.js';
import { globalId } from '../../src/lib/ids.js';

// Who may see what (docs/api.md), cell by cell: 4 kinds of token × 4 rows.
const t = useSeededServer();

type TokenName = keyof Fixtures['tokens'];
const ORGANIZERS: TokenName[] = ['organizerUser', 'organizerApp'];
const OTHERS: TokenName[] = ['otherUser', 'otherApp'];
const ALL = [...ORGANIZERS, ...OTHERS];

const EVENT_FIELDS = '{ event(slug: $slug) { id slug name startsAt endsAt timeZone visibility } }';
const REGISTRATIONS =
  '{ event(slug: $slug) { slug registrations { totalCount nodes { registrant { id name email activationState } } } } }';

const run = (token: TokenName, selection: string, slug: string) =>
  gql(t.server, t.fx.tokens[token], `query($slug: String!) ${selection}`, { slug });

describe('public event fields', () => {
  test.each(ALL)('%s sees them', async (token) => {
    const res = await run(token, EVENT_FIELDS, 'public-meetup');
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.event).toMatchObject({ slug: 'public-meetup', name: 'Public Meetup', visibility: 'PUBLIC' });
  });
});

describe('private event', () => {
  test.each(ORGANIZERS)('%s sees it', async (token) => {
    const res = await run(token, EVENT_FIELDS, 'private-retreat');
    expect(res.body.data!.event).toMatchObject({ slug: 'private-retreat', visibility: 'PRIVATE' });
  });

  test.each(OTHERS)('%s gets null, exactly as for a missing event', async (token) => {
    const hidden = await run(token, EVENT_FIELDS, 'private-retreat');
    const missing = await run(token, EVENT_FIELDS, 'no-such-event');
    expect(hidden.body).toEqual({ data: { event: null } });
    expect(hidden.text).toBe(missing.text);
    expect(hidden.status).toBe(missing.status);
  });
});

describe('registrations', () => {
  test.each(ORGANIZERS)('%s reads them', async (token) => {
    const res = await run(token, REGISTRATIONS, 'public-meetup');
    expect(res.body.errors).toBeUndefined();
    const conn = (res.body.data!.event as { registrations: { totalCount: number; nodes: unknown[] } }).registrations;
    expect(conn.totalCount).toBe(5);
    expect(conn.nodes).toHaveLength(5);
  });

  test.each(ORGANIZERS)('%s reads those of the private event too', async (token) => {
    const res = await run(token, REGISTRATIONS, 'private-retreat');
    expect(res.body.errors).toBeUndefined();
    expect((res.body.data!.event as { registrations: { totalCount: number } }).registrations.totalCount).toBe(1);
  });

  test.each(OTHERS)('%s gets null + FORBIDDEN', async (token) => {
    const res = await run(token, REGISTRATIONS, 'public-meetup');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ event: { slug: 'public-meetup', registrations: null } });
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors![0]).toMatchObject({ path: ['event', 'registrations'], extensions: { code: 'FORBIDDEN' } });
  });
});

describe('registrant.email', () => {
  const emails = async (token: TokenName) => {
    const res = await run(token, REGISTRATIONS, 'public-meetup');
    const nodes = (res.body.data!.event as { registrations: { nodes: { registrant: { email: string | null } }[] } })
      .registrations.nodes;
    return nodes.map((n) => n.registrant.email);
  };

  test("an organizer's user token sees the addresses (null where there is none)", async () => {
    expect(await emails('organizerUser')).toEqual([
      'ann@example.com',
      'pat@example.com',
      'dee@example.com',
      null,
      'other@example.com',
    ]);
  });

  test("an organizer's app token always sees null", async () => {
    expect(await emails('organizerApp')).toEqual([null, null, null, null, null]);
  });

  test.each(OTHERS)('%s never gets as far as an address', async (token) => {
    for (const slug of ['public-meetup', 'private-retreat']) {
      const res = await run(token, REGISTRATIONS, slug);
      expect(res.text).not.toMatch(/@example\.com/);
    }
  });
});

describe('events, node and nodes follow the same table', () => {
  const slugs = async (token: TokenName) => {
    const res = await gql(t.server, t.fx.tokens[token], '{ events { nodes { slug } } }');
    return (res.body.data!.events as { nodes: { slug: string }[] }).nodes.map((n) => n.slug);
  };
  const nodeOf = async (token: TokenName, id: string) => {
    const res = await gql(
      t.server,
      t.fx.tokens[token],
      'query($id: ID!) { node(id: $id) { __typename ... on Registrant { email } ... on Registration { registrant { email } } } }',
      { id },
    );
    expect(res.body.errors).toBeUndefined();
    return res.body.data!.node;
  };
  const registrationId = async (slug: 'publicEvent' | 'privateEvent') => {
    const row = await t.server.stores.registrations.find(t.fx[slug].id, t.fx.registrants[0]!.id);
    return globalId('Registration', row!.id);
  };

  test.each(ORGANIZERS)('%s: events lists the private event too; its node and registrations resolve', async (token) => {
    expect(await slugs(token)).toEqual(['public-meetup', 'private-retreat']);
    expect(await nodeOf(token, globalId('Event', t.fx.privateEvent.id))).toEqual({ __typename: 'Event' });
    const email = token === 'organizerUser' ? 'ann@example.com' : null;
    expect(await nodeOf(token, await registrationId('privateEvent'))).toEqual({
      __typename: 'Registration',
      registrant: { email },
    });
    expect(await nodeOf(token, t.fx.registrants[0]!.uid)).toEqual({ __typename: 'Registrant', email });
  });

  test.each(OTHERS)('%s: public events only; hidden and unreadable nodes are null', async (token) => {
    expect(await slugs(token)).toEqual(['public-meetup']);
    expect(await nodeOf(token, globalId('Event', t.fx.publicEvent.id))).toEqual({ __typename: 'Event' });
    expect(await nodeOf(token, globalId('Event', t.fx.privateEvent.id))).toBeNull();
    expect(await nodeOf(token, await registrationId('publicEvent'))).toBeNull();
    expect(await nodeOf(token, t.fx.registrants[0]!.uid)).toBeNull();
  });
});

describe('in production', () => {
  let prod: TestServer;
  beforeAll(async () => {
    prod = await startServer({ NODE_ENV: 'production', LOG_LEVEL: 'silent' });
  });
  afterAll(() => prod.close());

  test('Apollo Sandbox is still served to browsers', async () => {
    const res = await fetch(`${prod.url}/graphql`, { headers: { Accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain('embeddable-sandbox');
    expect(html).toContain('"headers":{"Authorization":"Bearer "}');
  });

  test('introspection still works with a token, and the SDL without one', async () => {
    const fx = await seedFixtures(prod);
    const res = await gql(prod, fx.tokens.otherApp, '{ __schema { queryType { name } } }');
    expect(res.body).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });
    expect((await fetch(`${prod.url}/graphql/schema.graphql`)).status).toBe(200);
  });
});
