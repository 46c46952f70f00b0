import { globalId } from '../../src/lib/ids.js';
import { useSeededServer, type Fixtures } from '../helpers/fixtures.js';
import { gql } from '../helpers/graphql.js';

// Global object identification: node(id:) and nodes(ids:) answer only what another path would.
const t = useSeededServer();
type TokenName = keyof Fixtures['tokens'];

const NODE = `query($id: ID!) { node(id: $id) { __typename id
  ... on Event { slug } ... on Registration { createdAt registrant { id email } } ... on Registrant { name email } } }`;

const node = async (token: TokenName, id: string) => {
  const res = await gql(t.server, t.fx.tokens[token], NODE, { id });
  expect(res.body.errors).toBeUndefined();
  return res.body.data!.node as Record<string, unknown> | null;
};

const privateRegistrationId = async () => {
  const row = await t.server.stores.registrations.find(t.fx.privateEvent.id, t.fx.registrants[0]!.id);
  return globalId('Registration', row!.id);
};

describe('events', () => {
  test.each(['organizerUser', 'organizerApp', 'otherUser', 'otherApp'] as const)(
    '%s gets a public event by the id Query.event gave',
    async (token) => {
      const byslug = await gql(t.server, t.fx.tokens[token], '{ event(slug: "public-meetup") { id } }');
      const id = (byslug.body.data!.event as { id: string }).id;
      expect(await node(token, id)).toEqual({ __typename: 'Event', id, slug: 'public-meetup' });
    },
  );

  test.each(['organizerUser', 'organizerApp'] as const)('%s gets the private event', async (token) => {
    expect(await node(token, globalId('Event', t.fx.privateEvent.id))).toMatchObject({ slug: 'private-retreat' });
  });

  test.each(['otherUser', 'otherApp'] as const)('%s gets null, as for an event that does not exist', async (token) => {
    expect(await node(token, globalId('Event', t.fx.privateEvent.id))).toBeNull();
    expect(await node(token, globalId('Event', 999_999))).toBeNull();
  });
});

describe('registrations', () => {
  test('an organizer user token gets it, with the registrant email', async () => {
    const id = await privateRegistrationId();
    const got = await node('organizerUser', id);
    expect(got).toMatchObject({ __typename: 'Registration', id, registrant: { id: t.fx.registrants[0]!.uid } });
    expect((got!.registrant as { email: string }).email).toBe('ann@example.com');
    expect(typeof got!.createdAt).toBe('string');
  });

  test("an organizer's app token gets it without the email", async () => {
    const got = await node('organizerApp', await privateRegistrationId());
    expect(got!.registrant).toEqual({ id: t.fx.registrants[0]!.uid, email: null });
  });

  test.each(['otherUser', 'otherApp'] as const)('%s gets null, even for a public event', async (token) => {
    const row = await t.server.stores.registrations.find(t.fx.publicEvent.id, t.fx.registrants[1]!.id);
    expect(await node(token, globalId('Registration', row!.id))).toBeNull();
    expect(await node(token, await privateRegistrationId())).toBeNull();
  });

  test('node ids are the ids the connection gives', async () => {
    const res = await gql(
      t.server,
      t.fx.tokens.organizerUser,
      '{ event(slug: "public-meetup") { registrations(first: 2) { nodes { id } } } }',
    );
    const ids = (res.body.data!.event as { registrations: { nodes: { id: string }[] } }).registrations.nodes;
    for (const { id } of ids) expect(await node('organizerUser', id)).toMatchObject({ id });
  });
});

describe('registrants (id: the uid, unchanged)', () => {
  test('an organizer user token gets a registrant of its event, with email', async () => {
    const ann = t.fx.registrants[0]!;
    expect(await node('organizerUser', ann.uid)).toEqual({
      __typename: 'Registrant',
      id: ann.uid,
      name: 'Ann Active',
      email: 'ann@example.com',
    });
  });

  test("an organizer's app token gets it without email", async () => {
    expect(await node('organizerApp', t.fx.registrants[0]!.uid)).toMatchObject({ email: null });
  });

  test('whoever may read none of its events gets null; so does a user registered nowhere', async () => {
    expect(await node('otherUser', t.fx.registrants[0]!.uid)).toBeNull();
    expect(await node('otherApp', t.fx.registrants[0]!.uid)).toBeNull();
    expect(await node('organizerUser', t.fx.organizer.uid)).toBeNull();
  });
});

describe('nodes(ids:)', () => {
  const NODES = 'query($ids: [ID!]!) { nodes(ids: $ids) { __typename id } rateLimit { cost } }';

  test('answers each id in order, null where node(id:) would be', async () => {
    const ids = [globalId('Event', t.fx.privateEvent.id), 'bogus!', globalId('Event', t.fx.publicEvent.id)];
    const res = await gql(t.server, t.fx.tokens.otherUser, NODES, { ids });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.nodes).toEqual([null, null, { __typename: 'Event', id: ids[2] }]);
  });

  test('more than 100 ids are refused with a one-line reason', async () => {
    const ids = Array.from({ length: 101 }, (_, i) => globalId('Event', i + 1));
    const res = await gql(t.server, t.fx.tokens.organizerUser, NODES, { ids });
    expect(res.status).toBe(200);
    expect(res.body.data).toBeNull();
    expect(res.body.errors).toEqual([expect.objectContaining({ message: '`ids` may list at most 100 ids, got 101.' })]);
    expect(res.body.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
  });

  test('priced per id: nested connections multiply by the ids asked', async () => {
    const ids = Array.from({ length: 100 }, () => globalId('Event', t.fx.publicEvent.id));
    const res = await gql(
      t.server,
      t.fx.tokens.organizerUser,
      'query($ids: [ID!]!) { nodes(ids: $ids) { ... on Event { registrations(first: 1000) { totalCount } } } }',
      { ids },
    );
    expect(res.body.errors![0]!.message).toBe('Query cost 1001 exceeds the maximum of 100.');
    const cheap = await gql(t.server, t.fx.tokens.organizerUser, NODES, { ids: ids.slice(0, 3) });
    expect(cheap.body.data!.rateLimit).toEqual({ cost: 1 });
  });
});

describe('hostile ids: null, never an error or another type', () => {
  test.each([
    ['empty', ''],
    ['not base64url', '%%%'],
    ['too long', 'x'.repeat(5000)],
    ['an unknown type', globalId('User', 1)],
    ['a ViewerApp-looking type', globalId('ViewerApp', 1)],
    ['a non-canonical spelling', Buffer.from('Event:01').toString('base64url')],
    ['a negative number', Buffer.from('Event:-1').toString('base64url')],
    ['an email, not a uid', 'ann@example.com'],
    ['a type with no number', 'RXZlbnQ6'],
  ])('%s', async (_name, id) => {
    expect(await node('organizerUser', id)).toBeNull();
  });

  test('a registration id is never answered as an event, nor the reverse', async () => {
    const reg = await privateRegistrationId();
    expect(await node('organizerUser', reg)).toMatchObject({ __typename: 'Registration' });
    const row = await t.server.stores.registrations.find(t.fx.privateEvent.id, t.fx.registrants[0]!.id);
    const asEvent = await node('organizerUser', globalId('Event', row!.id));
    expect(asEvent?.__typename ?? 'Event').toBe('Event');
  });
});
