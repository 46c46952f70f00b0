import { countQueries } from './helpers/harness.js';
import { useSeededServer } from './helpers/fixtures.js';
import { gql, SEED_QUERY } from './helpers/graphql.js';

const t = useSeededServer();

describe('the seed query', () => {
  test('works exactly as written and returns exactly {data}', async () => {
    const res = await gql(t.server, t.fx.tokens.organizerUser, SEED_QUERY, { slug: 'public-meetup' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        event: {
          registrations: {
            nodes: [
              { registrant: { activationState: 'active', email: 'ann@example.com', name: 'Ann Active' } },
              { registrant: { activationState: 'pending', email: 'pat@example.com', name: 'Pat Pending' } },
              { registrant: { activationState: 'deactivated', email: 'dee@example.com', name: 'Dee Deactivated' } },
              { registrant: { activationState: 'active', email: null, name: 'Nora No-Email' } },
              { registrant: { activationState: 'active', email: 'other@example.com', name: 'Otto Other' } },
            ],
          },
        },
      },
    });
  });

  test.each([
    ['application/json', 'application/json; charset=utf-8'],
    ['application/graphql-response+json', 'application/graphql-response+json; charset=utf-8'],
  ])('headers with Accept %s', async (accept, contentType) => {
    const res = await gql(t.server, t.fx.tokens.organizerUser, SEED_QUERY, { slug: 'public-meetup' }, accept);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(contentType);
    expect(res.headers.get('cache-control')).toBe('max-age=0, private, must-revalidate');
  });

  test('GET queries work too', async () => {
    const params = new URLSearchParams({ query: SEED_QUERY, variables: JSON.stringify({ slug: 'public-meetup' }) });
    const res = await fetch(`${t.server.url}/graphql?${params}`, {
      headers: { Authorization: `Bearer ${t.fx.tokens.organizerUser}`, Accept: 'application/json' },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { event: { registrations: { nodes: unknown[] } } } };
    expect(body.data.event.registrations.nodes).toHaveLength(5);
  });

  test('the SQL statement count does not grow with the page size', async () => {
    const query = `query($slug: String!, $first: Int) { event(slug: $slug) {
      registrations(first: $first) { nodes { registrant { activationState email name } } } } }`;
    const counts: number[] = [];
    for (const first of [1, 3, 5, 100]) {
      const { result, count } = await countQueries(t.server.db, () =>
        gql(t.server, t.fx.tokens.organizerApp, query, { slug: 'public-meetup', first }),
      );
      const nodes = (result.body.data!.event as { registrations: { nodes: unknown[] } }).registrations.nodes;
      expect(nodes).toHaveLength(Math.min(first, 5));
      counts.push(count);
    }
    expect(new Set(counts).size).toBe(1);
    // Token lookup (1 for an app token) + event + organizers + page + users.
    expect(counts[0]).toBeLessThanOrEqual(5);
  });
});

describe('pagination', () => {
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
  const page = async (variables: Record<string, unknown>) => {
    const res = await gql(t.server, t.fx.tokens.organizerUser, PAGE, { slug: 'public-meetup', ...variables });
    return { res, conn: (res.body.data?.event as { registrations: Conn } | undefined)?.registrations };
  };

  test('walking every page with cursors yields each registration once', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const { conn } = await page({ first: 2, after });
      pages += 1;
      expect(conn!.totalCount).toBe(5);
      expect(conn!.edges.map((e) => e.node.id)).toEqual(conn!.nodes.map((n) => n.id));
      expect(conn!.pageInfo.hasPreviousPage).toBe(after !== null);
      seen.push(...conn!.nodes.map((n) => n.registrant.name));
      if (!conn!.pageInfo.hasNextPage) break;
      expect(conn!.pageInfo.endCursor).toBe(conn!.edges.at(-1)!.cursor);
      after = conn!.pageInfo.endCursor;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(['Ann Active', 'Pat Pending', 'Dee Deactivated', 'Nora No-Email', 'Otto Other']);
  });

  test('first: 0 is an empty page; 1000 is allowed', async () => {
    const empty = await page({ first: 0 });
    expect(empty.conn!.nodes).toEqual([]);
    expect(empty.conn!.pageInfo).toMatchObject({ hasNextPage: true, startCursor: null, endCursor: null });
    const big = await page({ first: 1000 });
    expect(big.conn!.nodes).toHaveLength(5);
    expect(big.conn!.pageInfo.hasNextPage).toBe(false);
  });

  test.each([
    ['first over 1000', { first: 1001 }, /between 0 and 1000/],
    ['negative first', { first: -1 }, /between 0 and 1000/],
    ['a garbage cursor', { after: 'garbage!' }, /cursor/],
    ['a forged cursor', { after: Buffer.from('reg:abc').toString('base64url') }, /cursor/],
  ])('%s: BAD_USER_INPUT', async (_name, variables, message) => {
    const { res } = await page(variables);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ event: { registrations: null } });
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    expect(res.body.errors![0]!.message).toMatch(message);
  });

  test('a non-integer first is a validation error, not a 5xx', async () => {
    const { res } = await page({ first: 'ten' });
    expect(res.status).toBe(400);
    expect(res.body.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
  });
});

describe('schema access', () => {
  test('introspection works for any valid token', async () => {
    const res = await gql(t.server, t.fx.tokens.otherApp, '{ __schema { queryType { name } mutationType { name } } }');
    expect(res.body).toEqual({ data: { __schema: { queryType: { name: 'Query' }, mutationType: null } } });
  });

  test('introspection without a token is 401', async () => {
    const res = await gql(t.server, undefined, '{ __schema { queryType { name } } }');
    expect(res.status).toBe(401);
  });

  test('GET /graphql/schema.graphql serves the SDL without a token', async () => {
    const res = await fetch(`${t.server.url}/graphql/schema.graphql`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/graphql; charset=utf-8/);
    const sdl = await res.text();
    expect(sdl).toContain('event(slug: String!): Event');
    expect(sdl).not.toContain('type Mutation');
  });

  test('a browser GET /graphql shows Apollo Sandbox with the Authorization header to fill', async () => {
    const res = await fetch(`${t.server.url}/graphql`, { headers: { Accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    const html = await res.text();
    expect(html).toMatch(/sandbox/i);
    expect(html).toContain('Authorization');
  });

  test('a mutation is a clear client error', async () => {
    const res = await gql(t.server, t.fx.tokens.organizerUser, 'mutation { anything }');
    expect(res.status).toBe(400);
    expect(res.body.errors![0]!.extensions!.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(res.body.errors![0]!.message).toMatch(/mutation/i);
  });

  test('a syntax error is GRAPHQL_PARSE_FAILED', async () => {
    const res = await gql(t.server, t.fx.tokens.organizerUser, '{ event(slug: ');
    expect(res.status).toBe(400);
    expect(res.body.errors![0]!.extensions!.code).toBe('GRAPHQL_PARSE_FAILED');
  });
});

describe('viewer', () => {
  const VIEWER = '{ viewer { tokenKind scopes user { id name } app { clientId name } } }';

  test('a user token speaks for its user at its app', async () => {
    const res = await gql(t.server, t.fx.tokens.organizerUser, VIEWER);
    expect(res.body).toEqual({
      data: {
        viewer: {
          tokenKind: 'USER',
          scopes: ['openid', 'email', 'profile'],
          user: { id: t.fx.organizer.uid, name: 'Olive Organizer' },
          app: { clientId: t.fx.orgApp.clientId, name: 'Organizer Badge Printer' },
        },
      },
    });
  });

  test('an app token speaks for its app only', async () => {
    const res = await gql(t.server, t.fx.tokens.otherApp, VIEWER);
    expect(res.body).toEqual({
      data: {
        viewer: {
          tokenKind: 'APP',
          scopes: [],
          user: null,
          app: { clientId: t.fx.otherApp.clientId, name: 'Other CRM' },
        },
      },
    });
  });
});

describe('conditional requests', () => {
  const body = JSON.stringify({ query: SEED_QUERY, variables: { slug: 'public-meetup' } });
  const post = (headers: Record<string, string> = {}) =>
    fetch(`${t.server.url}/graphql`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${t.fx.tokens.organizerUser}`,
        'Content-Type': 'application/json',
        Accept: 'application/json',
        ...headers,
      },
      body,
    });

  test('every successful response has an ETag that changes with the data', async () => {
    const first = await post();
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^(W\/)?"[^"]+"$/);
    expect((await post()).headers.get('etag')).toBe(etag);
    await t.server.db('users').where({ id: t.fx.registrants[0]!.id }).update({ name: 'Ann Renamed' });
    try {
      expect((await post()).headers.get('etag')).not.toBe(etag);
    } finally {
      await t.server.db('users').where({ id: t.fx.registrants[0]!.id }).update({ name: 'Ann Active' });
    }
  });

  test('a matching If-None-Match gets 304 with no body and the same Cache-Control', async () => {
    const etag = (await post()).headers.get('etag')!;
    for (const header of [etag, `"other", ${etag}`, etag.replace(/^W\//, '')]) {
      const res = await post({ 'If-None-Match': header });
      expect(res.status).toBe(304);
      expect(await res.text()).toBe('');
      expect(res.headers.get('cache-control')).toBe('max-age=0, private, must-revalidate');
      expect(res.headers.get('etag')).toBe(etag);
    }
    const params = new URLSearchParams({ query: SEED_QUERY, variables: JSON.stringify({ slug: 'public-meetup' }) });
    const get = await fetch(`${t.server.url}/graphql?${params}`, {
      headers: {
        Authorization: `Bearer ${t.fx.tokens.organizerUser}`,
        Accept: 'application/json',
        'If-None-Match': etag,
      },
    });
    expect(get.status).toBe(304);
  });

  test('a stale tag gets the full answer', async () => {
    const res = await post({ 'If-None-Match': '"stale"' });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: unknown }).data).toBeDefined();
  });

  test('errors are never answered with 304', async () => {
    const bad = JSON.stringify({ query: '{ nope }' });
    const first = await fetch(`${t.server.url}/graphql`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${t.fx.tokens.organizerUser}`, 'Content-Type': 'application/json' },
      body: bad,
    });
    expect(first.status).toBe(400);
    const again = await fetch(`${t.server.url}/graphql`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${t.fx.tokens.organizerUser}`,
        'Content-Type': 'application/json',
        'If-None-Match': first.headers.get('etag') ?? '*',
      },
      body: bad,
    });
    expect(again.status).toBe(400);
  });
});
