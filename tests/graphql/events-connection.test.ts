import { useSeededServer, type Fixtures } from '../helpers/fixtures.js';
import { gql } from '../helpers/graphql.js';

// Query.events: the events a token may see (public, and private ones its user or owner organizes), by id.
const t = useSeededServer();

const EVENTS = `query($first: Int, $after: String) { events(first: $first, after: $after) {
  nodes { slug } edges { cursor node { id slug } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`;

type Conn = {
  nodes: { slug: string }[];
  edges: { cursor: string; node: { id: string; slug: string } }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
};

const list = async (token: keyof Fixtures['tokens'], variables: Record<string, unknown> = {}) => {
  const res = await gql(t.server, t.fx.tokens[token], EVENTS, variables);
  return { res, conn: (res.body.data?.events ?? null) as Conn | null };
};

beforeAll(async () => {
  // A private event of the other user, and more public events than one small page.
  const { events } = t.server.stores;
  await events.create({ slug: 'other-private', name: 'Other', visibility: 'private', organizerIds: [t.fx.other.id] });
  for (const n of [1, 2, 3]) await events.create({ slug: `public-${n}`, name: `P${n}`, organizerIds: [t.fx.other.id] });
});

const PUBLIC = ['public-meetup', 'public-1', 'public-2', 'public-3'];

test.each([
  ['organizerUser', ['public-meetup', 'private-retreat', 'public-1', 'public-2', 'public-3']],
  ['organizerApp', ['public-meetup', 'private-retreat', 'public-1', 'public-2', 'public-3']],
  ['otherUser', ['public-meetup', 'other-private', ...PUBLIC.slice(1)]],
  ['otherApp', ['public-meetup', 'other-private', ...PUBLIC.slice(1)]],
] as const)('%s sees public events and the private ones it organizes, in creation order', async (token, slugs) => {
  const { res, conn } = await list(token);
  expect(res.body.errors).toBeUndefined();
  expect(conn!.nodes.map((n) => n.slug)).toEqual(slugs);
  expect(conn!.edges.map((e) => e.node.slug)).toEqual(slugs);
  expect(conn!.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
});

test('each event is the same object Query.event answers, by id', async () => {
  const { conn } = await list('organizerUser', { first: 1 });
  const one = await gql(t.server, t.fx.tokens.organizerUser, '{ event(slug: "public-meetup") { id } }');
  expect(conn!.edges[0]!.node.id).toBe((one.body.data!.event as { id: string }).id);
});

test('pages by endCursor: every event once, in order', async () => {
  const seen: string[] = [];
  let after: string | null = null;
  for (let pages = 0; pages < 10; pages += 1) {
    const { conn } = await list('otherUser', { first: 2, after });
    seen.push(...conn!.nodes.map((n) => n.slug));
    expect(conn!.pageInfo.hasPreviousPage).toBe(after !== null);
    expect(conn!.pageInfo.endCursor).toBe(conn!.edges.at(-1)?.cursor ?? null);
    if (!conn!.pageInfo.hasNextPage) break;
    after = conn!.pageInfo.endCursor;
  }
  expect(seen).toEqual(['public-meetup', 'other-private', 'public-1', 'public-2', 'public-3']);
});

test('first: 0 answers an empty page', async () => {
  const { conn } = await list('otherApp', { first: 0 });
  expect(conn).toMatchObject({ nodes: [], pageInfo: { hasNextPage: true, startCursor: null, endCursor: null } });
});

describe('refused arguments', () => {
  test.each([
    [{ first: 1001 }, '`first` must be between 0 and 1000, got 1001.'],
    [{ first: -1 }, '`first` must be between 0 and 1000, got -1.'],
    [{ after: 'not a cursor' }, '`after` is not a cursor this API gave out.'],
    [{ after: Buffer.from('evt:01').toString('base64url') }, '`after` is not a cursor this API gave out.'],
  ])('%j', async (variables, message) => {
    const { res } = await list('organizerUser', variables);
    expect(res.status).toBe(200);
    expect(res.body.data).toBeNull();
    expect(res.body.errors).toEqual([expect.objectContaining({ message })]);
    expect(res.body.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
  });

  test('a registrations cursor is not an events cursor, and the reverse', async () => {
    const regs = await gql(
      t.server,
      t.fx.tokens.organizerUser,
      '{ event(slug: "public-meetup") { registrations(first: 1) { pageInfo { endCursor } } } }',
    );
    const regCursor = (regs.body.data!.event as { registrations: { pageInfo: { endCursor: string } } }).registrations
      .pageInfo.endCursor;
    const { res } = await list('organizerUser', { after: regCursor });
    expect(res.body.errors![0]!.message).toBe('`after` is not a cursor this API gave out.');
    const { conn } = await list('organizerUser', { first: 1 });
    const back = await gql(
      t.server,
      t.fx.tokens.organizerUser,
      'query($c: String) { event(slug: "public-meetup") { registrations(after: $c) { totalCount } } }',
      { c: conn!.pageInfo.endCursor },
    );
    expect(back.body.errors![0]!.message).toBe('`after` is not a cursor this API gave out.');
  });
});

describe('cost: priced by `first`, as registrations are', () => {
  const cost = async (query: string) => {
    const res = await gql(t.server, t.fx.tokens.otherUser, `{ ${query} rateLimit { cost } }`);
    return res.body.errors ? res.body.errors[0]!.message : (res.body.data!.rateLimit as { cost: number }).cost;
  };

  test('events(first: 1000) costs 10; default 100 costs 1', async () => {
    expect(await cost('events(first: 1000) { nodes { id } }')).toBe(10);
    expect(await cost('events { nodes { id } }')).toBe(1);
  });

  test('nested registrations multiply: 1000 × 1000 is refused before anything runs', async () => {
    expect(await cost('events(first: 1000) { nodes { registrations(first: 1000) { nodes { id } } } }')).toBe(
      'Query cost 10010 exceeds the maximum of 100.',
    );
  });
});
