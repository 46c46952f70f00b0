import { useSeededServer } from './helpers/fixtures.js';
import { gql, SEED_QUERY } from './helpers/graphql.js';

// Limits checked before execution: a query over any of them is rejected whole, quickly, with a 4xx.
const t = useSeededServer();

const run = (query: string, variables?: Record<string, unknown>) =>
  gql(t.server, t.fx.tokens.organizerUser, query, variables);

async function expectTooComplex(query: string, message: RegExp, variables?: Record<string, unknown>) {
  const started = Date.now();
  const res = await run(query, variables);
  expect(Date.now() - started).toBeLessThan(1000);
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

  test('a variable page size counts', async () => {
    const query = `query($n: Int) { a: event(slug: "public-meetup") { registrations(first: $n) { nodes { id } } }
      b: event(slug: "public-meetup") { registrations(first: $n) { nodes { id } } } }`;
    expect((await run(query, { n: 1000 })).status).toBe(200);
  });
});

describe('shape limits', () => {
  test('depth (a schema with recursion; this API has none deep enough to reach it)', async () => {
    const { buildSchema, parse } = await import('graphql');
    const { measure, overLimit } = await import('../src/graphql/limits.js');
    const schema = buildSchema('type Query { node: Node } type Node { child: Node id: ID }');
    const query = `{ node { ${'child { '.repeat(10)}id${' }'.repeat(10)} } }`;
    const operation = parse(query).definitions[0] as import('graphql').OperationDefinitionNode;
    const shape = measure(schema, operation, {}, {});
    expect(shape.depth).toBe(12);
    expect(overLimit(shape)).toBe('Query depth 12 exceeds the maximum of 10.');
  });

  test('aliases', async () => {
    const aliases = Array.from({ length: 31 }, (_, i) => `a${i}: viewer { tokenKind }`).join(' ');
    await expectTooComplex(`{ ${aliases} }`, /31 aliases; the maximum is 30/);
  });

  test('duplicate fields', async () => {
    await expectTooComplex(`{ viewer { ${'tokenKind '.repeat(501)} } }`, /502 fields; the maximum is 500/);
  });

  test('directive floods', async () => {
    const fields = 'tokenKind @include(if: true) '.repeat(51);
    await expectTooComplex(`{ viewer { ${fields} } }`, /51 directives; the maximum is 50/);
  });

  test('a huge document stops at the token limit as a parse error', async () => {
    const res = await run(`{ viewer { ${'tokenKind '.repeat(6000)} } }`);
    expect(res.status).toBe(200); // a request error in an application/json answer (GraphQL over HTTP)
    expect(res.body.errors![0]!.extensions!.code).toBe('GRAPHQL_PARSE_FAILED');
    expect(res.body.errors![0]!.message).toMatch(/5000 tokens/);
  });

  test('circular fragments are a validation error', async () => {
    const res = await run('{ viewer { ...A } } fragment A on Viewer { ...B } fragment B on Viewer { ...A }');
    expect(res.status).toBe(200);
    expect(res.body.errors![0]!.extensions!.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  test('introspection is exempt: the full introspection query works', async () => {
    const { getIntrospectionQuery } = await import('graphql');
    const res = await run(getIntrospectionQuery());
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
  });

  test('the server still answers normally afterwards', async () => {
    expect((await run('{ viewer { tokenKind } }')).body).toEqual({ data: { viewer: { tokenKind: 'USER' } } });
  });
});
