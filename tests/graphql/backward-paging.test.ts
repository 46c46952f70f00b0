import { addRegistrants, useSeededServer } from '../helpers/fixtures.js';
import { gql } from '../helpers/graphql.js';

// Backward paging on Event.registrations: `last` and `before`, pages still oldest first.
const t = useSeededServer();
const SLUG = 'backward';

beforeAll(async () => {
  const event = await t.server.stores.events.create({
    slug: SLUG,
    name: 'Backward',
    organizerIds: [t.fx.organizer.id],
  });
  await addRegistrants(t.server, event.id, 25, { prefix: 'bk', name: 'Bk', pad: 2 });
});

const ALL = Array.from({ length: 25 }, (_, i) => `Bk ${String(i).padStart(2, '0')}`);

const PAGE = `query($first: Int, $after: String, $last: Int, $before: String) { event(slug: "${SLUG}") {
  registrations(first: $first, after: $after, last: $last, before: $before) {
    nodes { createdAt registrant { name } } edges { cursor }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }`;

type Conn = {
  nodes: { createdAt: string; registrant: { name: string } }[];
  edges: { cursor: string }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
};

async function page(variables: Record<string, unknown>) {
  const res = await gql(t.server, t.fx.tokens.organizerUser, PAGE, variables);
  return { res, conn: (res.body.data?.event as { registrations: Conn } | undefined)?.registrations };
}
const names = (c: Conn) => c.nodes.map((n) => n.registrant.name);

test('last: 10 is the newest ten, oldest first', async () => {
  const { conn } = await page({ last: 10 });
  expect(names(conn!)).toEqual(ALL.slice(15));
  expect(conn!.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false });
  expect(conn!.pageInfo.startCursor).toBe(conn!.edges[0]!.cursor);
});

test('walking back by startCursor visits every registration once', async () => {
  const seen: string[] = [];
  let before: string | null = null;
  for (let i = 0; i < 10; i += 1) {
    const { conn } = await page({ last: 7, before });
    seen.unshift(...names(conn!));
    expect(conn!.pageInfo.hasNextPage).toBe(before !== null);
    if (!conn!.pageInfo.hasPreviousPage) break;
    before = conn!.pageInfo.startCursor;
  }
  expect(seen).toEqual(ALL);
});

test('before a forward cursor: the registrations just before it', async () => {
  const { conn: forward } = await page({ first: 12 });
  const { conn } = await page({ last: 3, before: forward!.pageInfo.endCursor });
  expect(names(conn!)).toEqual(ALL.slice(8, 11));
});

test('after and before together bound a range', async () => {
  const { conn: a } = await page({ first: 5 });
  const { conn: b } = await page({ first: 10 });
  const { conn } = await page({ after: a!.pageInfo.endCursor, before: b!.pageInfo.endCursor });
  expect(names(conn!)).toEqual(ALL.slice(5, 9));
});

test('createdAt is a date-time', async () => {
  const { conn } = await page({ last: 1 });
  expect(new Date(conn!.nodes[0]!.createdAt).toISOString()).toBe(conn!.nodes[0]!.createdAt);
});

describe('refused', () => {
  test.each([
    [
      { first: 1, last: 1 },
      'Passing both `first` and `last` to paginate the `registrations` connection is not supported.',
    ],
    [{ last: 1001 }, '`last` must be between 0 and 1000, got 1001.'],
    [{ last: -1 }, '`last` must be between 0 and 1000, got -1.'],
    [{ last: 1, before: 'nope' }, '`before` is not a cursor this API gave out.'],
    [{ last: 1, before: Buffer.from('evt:1').toString('base64url') }, '`before` is not a cursor this API gave out.'],
    [{ last: 1, before: Buffer.from('reg:1 ').toString('base64url') }, '`before` is not a cursor this API gave out.'],
  ])('%j', async (variables, message) => {
    const { res } = await page(variables);
    expect(res.status).toBe(200);
    expect(res.body.errors).toEqual([expect.objectContaining({ message })]);
    expect(res.body.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
  });
});

test('a non-organizer is refused before any argument is looked at', async () => {
  const res = await gql(t.server, t.fx.tokens.otherUser, PAGE, { last: 1 });
  expect(res.body.errors![0]!.extensions).toMatchObject({ code: 'FORBIDDEN' });
});

test('priced by `last` as by `first`', async () => {
  const cost = async (args: string) => {
    const res = await gql(
      t.server,
      t.fx.tokens.organizerUser,
      `{ event(slug: "${SLUG}") { registrations(${args}) { nodes { id } } } rateLimit { cost } }`,
    );
    return res.body.errors?.[0]?.message ?? (res.body.data!.rateLimit as { cost: number }).cost;
  };
  expect(await cost('last: 1000')).toBe(10);
  expect(await cost('first: 1000')).toBe(10);
  expect(await cost('last: 1')).toBe(1);
});
