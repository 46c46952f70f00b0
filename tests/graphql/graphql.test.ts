import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { useSeededServer } from '../helpers/fixtures.js';
import { gql, SEED_QUERY, type GraphQLResult } from '../helpers/graphql.js';

const t = useSeededServer();
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** POSTs a request body as it stands, with the organizer's token. */
const postAsOrganizer = (body: string, headers: Record<string, string> = {}) =>
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
});

describe('schema access', () => {
  test.each(['organizerUser', 'otherUser', 'organizerApp', 'otherApp'] as const)(
    'introspection works for any valid token (%s)',
    async (token) => {
      const res = await gql(t.server, t.fx.tokens[token], '{ __schema { queryType { name } mutationType { name } } }');
      expect(res.body).toEqual({ data: { __schema: { queryType: { name: 'Query' }, mutationType: null } } });
    },
  );

  test('introspection without a token is 401', async () => {
    const res = await gql(t.server, undefined, '{ __schema { queryType { name } } }');
    expect(res.status).toBe(401);
  });

  test('GET /graphql/schema.graphql serves the SDL file without a token', async () => {
    const res = await fetch(`${t.server.url}/graphql/schema.graphql`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/graphql; charset=utf-8');
    const sdl = await res.text();
    expect(sdl).toBe(readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8'));
    expect(sdl).toMatch(/event\([^)]*slug: String!\): Event/);
    expect(sdl).not.toContain('type Mutation');
  });

  test('a browser GET /graphql shows Apollo Sandbox with the Authorization header to fill', async () => {
    const res = await fetch(`${t.server.url}/graphql`, { headers: { Accept: BROWSER_ACCEPT } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain('embeddable-sandbox');
    expect(html).toContain('"initialState":{"headers":{"Authorization":"Bearer "},"includeCookies":false}');
  });

  test('a GET with a query is an API request, even from a browser: it needs a token', async () => {
    const params = new URLSearchParams({ query: '{ viewer { tokenKind } }' });
    const res = await fetch(`${t.server.url}/graphql?${params}`, { headers: { Accept: BROWSER_ACCEPT } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
  });
});

describe('event fields', () => {
  const FIELDS = 'query($slug: String!) { event(slug: $slug) { id slug name startsAt endsAt timeZone visibility } }';

  test('times are ISO 8601 DateTimes in UTC; ids are opaque', async () => {
    const event = await t.server.stores.events.create({
      slug: 'dated-workshop',
      name: 'Dated Workshop',
      startsAt: Date.UTC(2026, 4, 1, 9, 0),
      endsAt: Date.UTC(2026, 4, 1, 17, 30),
      timeZone: 'Europe/Paris',
      organizerIds: [t.fx.organizer.id],
    });
    const res = await gql(t.server, t.fx.tokens.otherApp, FIELDS, { slug: 'dated-workshop' });
    expect(res.body).toEqual({
      data: {
        event: {
          id: Buffer.from(`Event:${event.id}`).toString('base64url'),
          slug: 'dated-workshop',
          name: 'Dated Workshop',
          startsAt: '2026-05-01T09:00:00.000Z',
          endsAt: '2026-05-01T17:30:00.000Z',
          timeZone: 'Europe/Paris',
          visibility: 'PUBLIC',
        },
      },
    });
  });

  test('unknown times and time zone are null', async () => {
    const res = await gql(t.server, t.fx.tokens.otherUser, FIELDS, { slug: 'public-meetup' });
    expect(res.body.data!.event).toMatchObject({ startsAt: null, endsAt: null, timeZone: null });
  });

  test('registration and registrant ids: opaque, and the public uid', async () => {
    const res = await gql(
      t.server,
      t.fx.tokens.organizerUser,
      '{ event(slug: "public-meetup") { registrations(first: 1) { nodes { id createdAt registrant { id } } } } }',
    );
    const [node] = (res.body.data!.event as { registrations: { nodes: Record<string, unknown>[] } }).registrations
      .nodes;
    expect(node!.id).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(String(node!.id), 'base64url').toString()).toMatch(/^Registration:\d+$/);
    expect(new Date(String(node!.createdAt)).toISOString()).toBe(node!.createdAt);
    expect(node!.registrant).toEqual({ id: t.fx.registrants[0]!.uid });
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
  const post = (headers: Record<string, string> = {}) => postAsOrganizer(body, headers);

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
    expect(first.status).toBe(200); // a validation error, in an application/json answer
    const again = await fetch(`${t.server.url}/graphql`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${t.fx.tokens.organizerUser}`,
        'Content-Type': 'application/json',
        'If-None-Match': first.headers.get('etag') ?? '*',
      },
      body: bad,
    });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { errors: unknown[] }).errors).toHaveLength(1);
  });
});

describe('automatic persisted queries', () => {
  // A query of its own, so no other test can have registered its hash first.
  const query = 'query Persisted($slug: String!) { event(slug: $slug) { name } }';
  const sha256Hash = createHash('sha256').update(query).digest('hex');
  const persisted = { persistedQuery: { version: 1, sha256Hash } };
  const post = (payload: Record<string, unknown>) =>
    postAsOrganizer(JSON.stringify(payload)).then(async (res) => ({
      status: res.status,
      cacheControl: res.headers.get('cache-control'),
      etag: res.headers.get('etag'),
      body: (await res.json()) as GraphQLResult['body'],
    }));

  test('a hash is unknown until sent with its query, then stands for it, by POST and by GET', async () => {
    const variables = { slug: 'public-meetup' };
    const unknown = await post({ variables, extensions: persisted });
    expect(unknown.status).toBe(200);
    expect(unknown.cacheControl).toBe('max-age=0, private, must-revalidate');
    expect(unknown.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect(unknown.body.data).toBeUndefined();
    // An error answer, so never a 304, even to a client that sends back its ETag.
    const again = await postAsOrganizer(JSON.stringify({ variables, extensions: persisted }), {
      'If-None-Match': unknown.etag ?? '*',
    });
    expect(again.status).toBe(200);

    const registered = await post({ query, variables, extensions: persisted });
    expect(registered).toMatchObject({ status: 200, body: { data: { event: { name: 'Public Meetup' } } } });
    expect(await post({ variables, extensions: persisted })).toEqual(registered);

    const params = new URLSearchParams({ variables: JSON.stringify(variables), extensions: JSON.stringify(persisted) });
    const get = await fetch(`${t.server.url}/graphql?${params}`, {
      headers: { Authorization: `Bearer ${t.fx.tokens.organizerUser}`, Accept: 'application/json' },
    });
    expect(get.status).toBe(200);
    expect(await get.json()).toEqual(registered.body);
  });

  test.each([
    ['a hash that does not match its query', { version: 1, sha256Hash: '0'.repeat(64) }, /sha does not match/],
    ['an unknown protocol version', { version: 2, sha256Hash }, /Unsupported persisted query version/],
  ])('%s is a 400 with its reason and a code', async (_case, persistedQuery, reason) => {
    const res = await post({ query, variables: { slug: 'public-meetup' }, extensions: { persistedQuery } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      errors: [{ message: expect.stringMatching(reason), extensions: { code: 'BAD_REQUEST' } }],
    });
  });

  test('a persisted query is measured and needs a token like any other', async () => {
    const variables = { slug: 'public-meetup' };
    await post({ query, variables, extensions: persisted });
    const measured = await post({ variables, extensions: { ...persisted, cost: true } });
    expect(measured.body).toMatchObject({ extensions: { cost: { requested: 1, actual: 1, maximum: 100 } } });
    const anonymous = await fetch(`${t.server.url}/graphql`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ variables, extensions: persisted }),
    });
    expect(anonymous.status).toBe(401);
  });
});
