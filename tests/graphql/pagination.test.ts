import { addRegistrants, useSeededServer } from '../helpers/fixtures.js';
import { gql, SEED_QUERY } from '../helpers/graphql.js';
import { forgetCachedAnswers, sqlDuring } from '../helpers/sql.js';

// Cursor pagination over an event bigger than one default page, and the SQL it costs.
const t = useSeededServer();
const SLUG = 'big-conference';
const REGISTRANTS = 250;

beforeAll(async () => {
  const event = await t.server.stores.events.create({
    slug: SLUG,
    name: 'Big Conference',
    organizerIds: [t.fx.organizer.id],
  });
  await addRegistrants(t.server, event.id, REGISTRANTS, { prefix: 'big', name: 'Big', pad: 3 });
});

const ALL_NAMES = Array.from({ length: REGISTRANTS }, (_, i) => `Big ${String(i).padStart(3, '0')}`);

const PAGE = `query($slug: String!, $first: Int, $after: String) { event(slug: $slug) {
  registrations(first: $first, after: $after) {
    totalCount nodes { id registrant { name } } edges { cursor node { id } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }`;

type Conn = {
  totalCount: number;
  nodes: { id: string; registrant: { name: string } }[];
  edges: { cursor: string; node: { id: string } }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
};

async function page(variables: Record<string, unknown>, slug = SLUG) {
  const res = await gql(t.server, t.fx.tokens.organizerUser, PAGE, { slug, ...variables });
  return { res, conn: (res.body.data?.event as { registrations: Conn | null } | undefined)?.registrations };
}

/** Follows endCursor to the end; checks every page's invariants on the way. */
async function walk(
  first: number | undefined,
  slug = SLUG,
): Promise<{ names: string[]; ids: string[]; pages: number }> {
  const names: string[] = [];
  const ids: string[] = [];
  let after: string | null = null;
  for (let pages = 1; ; pages += 1) {
    const { conn } = await page({ first, after }, slug);
    expect(conn!.edges.map((e) => e.node.id)).toEqual(conn!.nodes.map((n) => n.id));
    expect(conn!.pageInfo.startCursor).toBe(conn!.edges[0]?.cursor ?? null);
    expect(conn!.pageInfo.endCursor).toBe(conn!.edges.at(-1)?.cursor ?? null);
    expect(conn!.pageInfo.hasPreviousPage).toBe(after !== null);
    names.push(...conn!.nodes.map((n) => n.registrant.name));
    ids.push(...conn!.nodes.map((n) => n.id));
    if (!conn!.pageInfo.hasNextPage) return { names, ids, pages };
    after = conn!.pageInfo.endCursor;
  }
}

describe('pages', () => {
  test('no arguments: the first 100, with a next page', async () => {
    const { res, conn } = await page({});
    expect(res.body.errors).toBeUndefined();
    expect(conn!.nodes).toHaveLength(100);
    expect(conn!.nodes[0]!.registrant.name).toBe('Big 000');
    expect(conn!.nodes[99]!.registrant.name).toBe('Big 099');
    expect(conn!.totalCount).toBe(REGISTRANTS);
    expect(conn!.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
  });

  test('the exact seed query returns the default page of 100', async () => {
    const res = await gql(t.server, t.fx.tokens.organizerUser, SEED_QUERY, { slug: SLUG });
    const nodes = (res.body.data!.event as { registrations: { nodes: unknown[] } }).registrations.nodes;
    expect(nodes).toHaveLength(100);
    expect(nodes[0]).toEqual({ registrant: { activationState: 'active', email: 'big0@example.com', name: 'Big 000' } });
  });

  test.each([[undefined], [7], [100], [249], [250]])(
    'walking pages of %p yields every registration once',
    async (first) => {
      const { names, ids, pages } = await walk(first);
      expect(names).toEqual(ALL_NAMES);
      expect(new Set(ids).size).toBe(REGISTRANTS);
      expect(pages).toBe(Math.ceil(REGISTRANTS / (first ?? 100)));
    },
  );

  test('a small event walks the same way', async () => {
    const { names, pages } = await walk(2, 'public-meetup');
    expect(pages).toBe(3);
    expect(names).toEqual(['Ann Active', 'Pat Pending', 'Dee Deactivated', 'Nora No-Email', 'Otto Other']);
  });

  test('first: 1000 is allowed and returns everything', async () => {
    const { res, conn } = await page({ first: 1000 });
    expect(res.body.errors).toBeUndefined();
    expect(conn!.nodes).toHaveLength(REGISTRANTS);
    expect(conn!.pageInfo.hasNextPage).toBe(false);
  });

  test('first: 0 is an empty page', async () => {
    const { res, conn } = await page({ first: 0 });
    expect(res.body.errors).toBeUndefined();
    expect(conn).toMatchObject({
      totalCount: REGISTRANTS,
      nodes: [],
      edges: [],
      pageInfo: { hasNextPage: true, startCursor: null, endCursor: null },
    });
  });

  test('after the last cursor: an empty page with a previous one', async () => {
    const { conn: all } = await page({ first: 1000 });
    const { conn } = await page({ after: all!.pageInfo.endCursor });
    expect(conn!.nodes).toEqual([]);
    expect(conn!.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: true, startCursor: null, endCursor: null });
  });

  test('cursors and ids are opaque strings, not row numbers', async () => {
    const { conn } = await page({ first: 1 });
    expect(conn!.edges[0]!.cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(conn!.edges[0]!.cursor).not.toMatch(/^\d+$/);
    expect(conn!.nodes[0]!.id).not.toMatch(/^\d+$/);
  });
});

describe('bad arguments are BAD_USER_INPUT with a one-line message', () => {
  test.each([
    ['first over 1000', { first: 1001 }, /^`first` must be between 0 and 1000, got 1001\.$/],
    ['negative first', { first: -1 }, /^`first` must be between 0 and 1000, got -1\.$/],
    ['a garbage cursor', { after: 'garbage!' }, /cursor/],
    ['an empty cursor', { after: '' }, /cursor/],
    ['a forged cursor', { after: Buffer.from('reg:abc').toString('base64url') }, /cursor/],
    ['a cursor of a negative id', { after: Buffer.from('reg:-5').toString('base64url') }, /cursor/],
  ])('%s', async (_name, variables, message) => {
    const { res } = await page(variables);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ event: { registrations: null } });
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors![0]).toMatchObject({
      path: ['event', 'registrations'],
      extensions: { code: 'BAD_USER_INPUT' },
    });
    expect(res.body.errors![0]!.message).toMatch(message);
    expect(res.body.errors![0]!.message).not.toContain('\n');
  });

  test('a non-integer first is a variable error (200 in an application/json answer), not a 5xx', async () => {
    const { res } = await page({ first: 'ten' });
    expect(res.status).toBe(200);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
  });
});

describe('SQL statements per request', () => {
  /** The SQL text of every statement the database runs while `fn` runs, computing its answer afresh. */
  const statements = async (fn: () => Promise<unknown>) => {
    await forgetCachedAnswers(t.server.db);
    return (await sqlDuring(t.server.db, fn)).sql;
  };

  const QUERY = `query($slug: String!, $first: Int) { event(slug: $slug) {
    registrations(first: $first) { nodes { registrant { activationState email name } } } } }`;
  const TABLES = /\bfrom\s+["`]?(events|event_organizers|registrations|users)["`]?/gi;
  /** The table each statement reads from (its outermost FROM: the last, after any subquery's), sorted. */
  const tablesOf = (sql: string[]) =>
    sql
      .map((s) => [...s.matchAll(TABLES)].at(-1)?.[1])
      .filter((x) => x !== undefined)
      .sort();

  const request = async (token: string, first: number, query = QUERY) => {
    const res = await gql(t.server, token, query, { slug: SLUG, first });
    expect(res.body.errors).toBeUndefined();
    const nodes = (res.body.data!.event as { registrations: { nodes: unknown[] } }).registrations.nodes;
    expect(nodes).toHaveLength(first);
  };

  test.each(['organizerUser', 'organizerApp'] as const)(
    'a constant number whatever the page size (%s)',
    async (token) => {
      await request(t.fx.tokens[token], 1); // warm-up: nothing lazy counts below
      const counts: number[] = [];
      for (const first of [1, 10, 100]) {
        counts.push((await statements(() => request(t.fx.tokens[token], first))).length);
      }
      expect(counts).toEqual([counts[0], counts[0], counts[0]]);
    },
  );

  test('resolving the seed query is two statements: the event with its organizers, and the page joined to its registrants', async () => {
    for (const first of [1, 10, 100]) {
      // An app token's own lookup reads app_tokens and client_apps only, so these are all the resolvers'.
      const sql = await statements(() => request(t.fx.tokens.organizerApp, first));
      expect(tablesOf(sql)).toEqual(['events', 'registrations']);
      expect(sql.filter((s) => /\bevent_organizers\b/i.test(s) && /\bfrom\s+["`]?events\b/i.test(s))).toHaveLength(1);
      expect(sql.filter((s) => /\bjoin\s+["`]?users["`]?/i.test(s))).toHaveLength(1);
      expect(sql.some((s) => /count\(/i.test(s))).toBe(false);
    }
  });

  test('totalCount costs one more statement, only when asked', async () => {
    const withCount = QUERY.replace('nodes {', 'totalCount nodes {');
    const sql = await statements(() => request(t.fx.tokens.organizerApp, 10, withCount));
    expect(sql.filter((s) => /count\(/i.test(s))).toHaveLength(1);
    expect(tablesOf(sql)).toEqual(['events', 'registrations', 'registrations']);
  });
});

describe('backward', () => {
  const BACK = `query($slug: String!, $last: Int, $before: String) { event(slug: $slug) {
    registrations(last: $last, before: $before) { nodes { registrant { name } }
    pageInfo { hasNextPage hasPreviousPage startCursor } } } }`;
  type Back = {
    nodes: { registrant: { name: string } }[];
    pageInfo: { hasPreviousPage: boolean; startCursor: string };
  };

  test('walking back with `last: 100` from the end visits all 250 once, in 3 pages', async () => {
    const names: string[] = [];
    let before: string | null = null;
    let pages = 0;
    // Bounded: a cursor that never reaches the start fails the page count below instead of looping.
    while (pages < 10) {
      pages += 1;
      const res = await gql(t.server, t.fx.tokens.organizerUser, BACK, { slug: SLUG, last: 100, before });
      const conn = (res.body.data!.event as { registrations: Back }).registrations;
      names.unshift(...conn.nodes.map((n) => n.registrant.name));
      if (!conn.pageInfo.hasPreviousPage) break;
      before = conn.pageInfo.startCursor;
    }
    expect(pages).toBe(3);
    expect(names).toEqual(ALL_NAMES);
  });

  test('a backward page costs one statement, as a forward one does', async () => {
    const { sql } = await sqlDuring(t.server.db, () =>
      gql(t.server, t.fx.tokens.organizerUser, BACK, { slug: SLUG, last: 100 }),
    );
    expect(sql.filter((q) => /from\W+registrations\W+as\W+r\W/i.test(q) && /desc/i.test(q))).toHaveLength(1);
  });
});
