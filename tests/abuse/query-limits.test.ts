import { buildSchema, parse, type OperationDefinitionNode } from 'graphql';
import { LIMITS, overLimit } from '../../src/graphql/limits.js';
import { documentOverLimit, measure } from '../../src/graphql/query-shape.js';
import { useSeededServer } from '../helpers/fixtures.js';
import { gql, SEED_QUERY } from '../helpers/graphql.js';
import { REFUSAL_MS } from '../helpers/timing.js';

// Limits checked before execution, at their boundaries: a query over any of them is rejected whole,
// quickly, with a 4xx saying which; a query at every one of them runs. (Worst cases: query-analysis.)
const t = useSeededServer();
const times = (n: number, item: (i: number) => string) => Array.from({ length: n }, (_, i) => item(i)).join(' ');

const run = (query: string, variables?: Record<string, unknown>) =>
  gql(t.server, t.fx.tokens.organizerUser, query, variables);

async function expectTooComplex(query: string, message: RegExp, variables?: Record<string, unknown>) {
  const started = Date.now();
  const res = await run(query, variables);
  expect(Date.now() - started).toBeLessThan(REFUSAL_MS);
  expect(res.status).toBe(400);
  expect(res.body.data).toBeUndefined();
  expect(res.body.errors).toHaveLength(1);
  expect(res.body.errors![0]!.extensions!.code).toBe('QUERY_TOO_COMPLEX');
  expect(res.body.errors![0]!.message).toMatch(message);
  return res;
}

describe('cost', () => {
  test('by default the body is exactly {data}; asking for the cost adds extensions.cost', async () => {
    const plain = await run(SEED_QUERY, { slug: 'public-meetup' });
    expect(Object.keys(plain.body)).toEqual(['data']);
    const res = await fetch(`${t.server.url}/graphql`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${t.fx.tokens.organizerUser}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        query: 'query($slug: String!) { event(slug: $slug) { registrations(first: 1000) { nodes { id } } } }',
        variables: { slug: 'public-meetup' },
        extensions: { cost: true },
      }),
    });
    const body = (await res.json()) as { extensions: { cost: unknown } };
    // 1000 nodes may come back (cost 10); 5 did (cost rounds up to the minimum of 1).
    expect(body.extensions.cost).toEqual({ requested: 10, actual: 1, maximum: 100 });
  });

  test('connection sizes multiply down the tree, across aliases and fragments', async () => {
    const aliases = Array.from({ length: 11 }, (_, i) => `e${i}: event(slug: "public-meetup") { ...R }`).join(' ');
    const res = await expectTooComplex(
      `query { ${aliases} } fragment R on Event { registrations(first: 1000) { nodes { id } } }`,
      /Query cost 110 exceeds the maximum of 100\./,
    );
    expect(res.body.errors![0]!.extensions!.cost).toEqual({ requested: 110, maximum: 100 });
  });

  /** The cost the server asked for, from `extensions.cost`. */
  async function requestedCost(query: string, variables?: Record<string, unknown>) {
    const res = await fetch(`${t.server.url}/graphql`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${t.fx.tokens.organizerUser}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query, variables, extensions: { cost: true } }),
    });
    const body = (await res.json()) as { extensions?: { cost: { requested: number } }; errors?: unknown[] };
    expect(body.errors).toBeUndefined();
    return body.extensions!.cost.requested;
  }

  const twoPages = (first: string) => `query${first === '$n' ? '($n: Int = 1000)' : ''} {
    a: event(slug: "public-meetup") { registrations(first: ${first}) { nodes { id } } }
    b: event(slug: "public-meetup") { ...R } }
    fragment R on Event { registrations(first: ${first}) { edges { node { id } } } }`;

  test('a variable page size counts, in aliases and fragments alike', async () => {
    expect(await requestedCost(twoPages('$n'), { n: 700 })).toBe(14);
    expect(await requestedCost(twoPages('$n'), { n: 50 })).toBe(1);
  });

  test("a variable's default page size counts when no value is sent", async () => {
    expect(await requestedCost(twoPages('$n'))).toBe(20);
    // A null sent replaces the default: the resolver then uses its own default of 100.
    expect(await requestedCost(twoPages('$n'), { n: null })).toBe(2);
  });

  test('a literal page size counts', async () => {
    expect(await requestedCost(twoPages('300'))).toBe(6);
  });

  test('the connection fields: events by `first`, registrations by `first` or `last`, nodes by its ids', async () => {
    expect(await requestedCost('{ events(first: 1000) { nodes { id } } }')).toBe(10);
    expect(await requestedCost('{ events { nodes { id } } }')).toBe(1);
    expect(await requestedCost('query($n: Int) { events(first: $n) { edges { node { id } } } }', { n: 700 })).toBe(7);
    const last = (n: string) => `{ event(slug: "public-meetup") { registrations(last: ${n}) { nodes { id } } } }`;
    expect(await requestedCost(last('1000'))).toBe(10);
    expect(await requestedCost(last('300'))).toBe(3);
    const nodes =
      'query($ids: [ID!]!) { nodes(ids: $ids) { ... on Event { registrations(first: 500) { totalCount } } } }';
    expect(await requestedCost(nodes, { ids: Array(10).fill('RXZlbnQ6MQ') })).toBe(50);
    expect(await requestedCost('{ nodes(ids: ["a", "b"]) { id } node(id: "c") { id } }')).toBe(1);
    await expectTooComplex(
      '{ events(first: 1000) { nodes { registrations(last: 1000) { nodes { id } } } } }',
      /^Query cost 10010 exceeds the maximum of 100\.$/,
    );
    await expectTooComplex(nodes, /^Query cost 2505 exceeds the maximum of 100\.$/, {
      ids: Array(500).fill('RXZlbnQ6MQ'),
    });
  });

  test('a default page size over the limit is refused before execution', async () => {
    const aliases = Array.from({ length: 11 }, (_, i) => `e${i}: event(slug: "public-meetup") { ...R }`).join(' ');
    const res = await expectTooComplex(
      `query($n: Int = 1000) { ${aliases} } fragment R on Event { registrations(first: $n) { nodes { id } } }`,
      /Query cost 110 exceeds the maximum of 100\./,
    );
    expect(res.body.errors![0]!.extensions!.cost).toEqual({ requested: 110, maximum: 100 });
  });
});

describe('shape limits', () => {
  test('depth (a schema with recursion: only introspection recurses in this API)', () => {
    const schema = buildSchema('type Query { node: Node } type Node { child: Node id: ID }');
    const nested = (levels: number) => parse(`{ node { ${'child { '.repeat(levels)}id${' }'.repeat(levels)} } }`);
    const operation = nested(15).definitions[0] as OperationDefinitionNode;
    const shape = measure(schema, operation, {}, {});
    expect(shape.depth).toBe(17);
    expect(overLimit(shape)).toBe('Query nests deeper than the maximum depth of 15.');
    expect(documentOverLimit(schema, nested(15))).toBe('Query nests deeper than the maximum depth of 15.');
    expect(documentOverLimit(schema, nested(13))).toBeUndefined();
  });

  test('depth, over HTTP: introspection nested past it', async () => {
    await expectTooComplex(
      `{ __type(name: "Event") { ${'ofType { '.repeat(15)}name${' }'.repeat(15)} } }`,
      /^Query nests deeper than the maximum depth of 15\.$/,
    );
  });

  test('aliases', async () => {
    const aliases = Array.from({ length: 31 }, (_, i) => `a${i}: viewer { tokenKind }`).join(' ');
    await expectTooComplex(`{ ${aliases} }`, /^Query has more than the maximum of 30 aliases\.$/);
  });

  test('fields', async () => {
    const event = `id slug name startsAt endsAt timeZone visibility
      registrations { totalCount pageInfo { hasNextPage endCursor } nodes { id createdAt registrant { name } } }`;
    const events = Array.from({ length: 30 }, (_, i) => `e${i}: event(slug: "public-meetup") { ${event} }`);
    await expectTooComplex(`{ ${events.join(' ')} }`, /^Query selects more than the maximum of 500 fields\.$/);
  });

  test('a field repeated in one selection set, fragments included', async () => {
    await expectTooComplex(
      `{ viewer { ${'tokenKind '.repeat(40)} ...V } } fragment V on Viewer { ${'tokenKind '.repeat(11)} }`,
      /^Query repeats a field more than the maximum of 50 times in one selection set\.$/,
    );
    const fifty = await run(
      `{ viewer { ${'tokenKind '.repeat(40)} ...V } } fragment V on Viewer { ${'tokenKind '.repeat(10)} }`,
    );
    expect(fifty.body).toEqual({ data: { viewer: { tokenKind: 'USER' } } });
  });

  test('fields merged across fragments (what validation compares, bounded before it runs)', async () => {
    // Each fragment adds a field to everything it spreads: the merged sets grow as the square of the chain.
    const chain = Array.from({ length: 300 }, (_, i) => `fragment F${i} on Viewer { ...F${i + 1} f${i} }`);
    await expectTooComplex(
      `{ viewer { ...F0 } } ${chain.join(' ')} fragment F300 on Viewer { tokenKind }`,
      /^Query merges more than the maximum of 10000 fields across its fragments\.$/,
    );
  });

  test('directive floods', async () => {
    const fields = 'tokenKind @include(if: true) '.repeat(51);
    await expectTooComplex(`{ viewer { ${fields} } }`, /^Query uses more than the maximum of 50 directives\.$/);
  });

  test('directives on the operation and its variables count too', async () => {
    const variables = Array.from({ length: 51 }, (_, i) => `$v${i}: Int @deprecated`).join(' ');
    await expectTooComplex(`query(${variables}) { viewer { tokenKind } }`, /50 directives/);
  });
});

test('queries at each limit run, and the server answers normally afterwards', async () => {
  const event = `id slug name startsAt endsAt timeZone visibility registrations {
    totalCount pageInfo { hasNextPage endCursor } nodes { id createdAt registrant { name } } }`;
  // 27 events of 18 fields and 14 more: exactly the 500 fields, and 27 of the 30 aliases.
  const fields = `{ ${times(27, (i) => `e${i}: event(slug: "public-meetup") { ${event} }`)} viewer { ${'tokenKind '.repeat(13)} } }`;
  const atLimits = [
    fields,
    `{ ${times(LIMITS.maxAliases, (i) => `a${i}: __typename`)} }`,
    `{ viewer { ${'tokenKind '.repeat(LIMITS.maxRepeats - 1)} ...V } } fragment V on Viewer { tokenKind }`,
    `{ __type(name: "Event") { ${'ofType { '.repeat(LIMITS.maxDepth - 2)}name${' }'.repeat(LIMITS.maxDepth - 2)} } }`,
    `{ viewer { ${times(LIMITS.maxDirectives, () => 'tokenKind @include(if: true)')} } }`,
  ];
  for (const query of atLimits) {
    const res = await run(query);
    expect({ query, status: res.status, errors: res.body.errors }).toEqual({ query, status: 200, errors: undefined });
  }
  expect((await run('{ viewer { tokenKind } }')).body).toEqual({ data: { viewer: { tokenKind: 'USER' } } });
});
