import { GraphQLError, parse } from 'graphql';
import { formatError } from '../../src/graphql/plugins/error-masking.js';
import { useSeededServer } from '../helpers/fixtures.js';
import { gql, SEED_QUERY } from '../helpers/graphql.js';
import { startServer } from '../helpers/harness.js';
import { HEALTH_MS, REFUSAL_MS, slowestHealthCheckDuring } from '../helpers/timing.js';

// Documents refused as documents: syntax errors, validation errors, operations this API does not have.
// Each is a GraphQL error with its documented code and the status GraphQL over HTTP gives it (a 200 for
// application/json, a 400 for application/graphql-response+json), quickly, never a 5xx. (Documents over
// a limit: query-limits and query-analysis.)
const t = useSeededServer();
const run = (query: string, accept?: string) => gql(t.server, t.fx.tokens.organizerUser, query, undefined, accept);

afterEach(async () => {
  const res = await gql(t.server, t.fx.tokens.organizerUser, SEED_QUERY, { slug: 'public-meetup' });
  expect(res.status).toBe(200);
  expect(res.body.data!.event).not.toBeNull();
});

describe('operations this API does not have', () => {
  test.each([
    ['application/json', 200],
    ['application/graphql-response+json', 400],
  ])(
    'a mutation by POST accepting %s: %d GRAPHQL_VALIDATION_FAILED saying the API is read-only',
    async (accept, status) => {
      const res = await run('mutation { anything }', accept);
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toBe(`${accept}; charset=utf-8`);
      expect(res.body.data).toBeUndefined();
      expect(res.body.errors).toHaveLength(1);
      expect(res.body.errors![0]!.extensions!.code).toBe('GRAPHQL_VALIDATION_FAILED');
      expect(res.body.errors![0]!.message).toBe('This API is read-only: the schema has no mutation type.');
    },
  );

  test('a subscription by POST: 400, pointing to the stream that serves it', async () => {
    const res = await run('subscription { changes { cursor } }');
    expect(res.status).toBe(400);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors![0]!.message).toBe('Subscriptions are served at /graphql/stream, over Server-Sent Events.');
    expect(res.body.errors![0]!.extensions).toMatchObject({ code: 'BAD_REQUEST' });
  });

  test('a mutation by GET: 405 with Allow: POST (GraphQL over HTTP)', async () => {
    const params = new URLSearchParams({ query: 'mutation { anything }' });
    const res = await fetch(`${t.server.url}/graphql?${params}`, {
      headers: { Authorization: `Bearer ${t.fx.tokens.organizerUser}`, Accept: 'application/json' },
    });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(((await res.json()) as { errors: unknown[] }).errors).toHaveLength(1);
  });

  test('an operationName the document lacks: a validation error, with a documented code', async () => {
    const res = await fetch(`${t.server.url}/graphql`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${t.fx.tokens.organizerUser}`,
        'Content-Type': 'application/json',
        Accept: 'application/graphql-response+json',
      },
      body: JSON.stringify({ query: 'query A { viewer { tokenKind } }', operationName: 'B' }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { errors: { message: string; extensions: { code: string } }[] };
    expect(body.errors[0]).toMatchObject({
      message: 'Unknown operation named "B".',
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    });
  });
});

describe('syntax errors', () => {
  test.each([
    ['application/json', 200],
    ['application/graphql-response+json', 400],
  ])('a syntax error accepting %s: %d GRAPHQL_PARSE_FAILED', async (accept, status) => {
    const res = await run('{ event(slug: ', accept);
    expect(res.status).toBe(status);
    expect(res.body.errors![0]!.extensions!.code).toBe('GRAPHQL_PARSE_FAILED');
  });

  test('a huge document stops at the token limit as a parse error', async () => {
    const res = await run(`{ viewer { ${'tokenKind '.repeat(6000)} } }`);
    expect(res.status).toBe(200); // a request error in an application/json answer (GraphQL over HTTP)
    expect(res.body.errors![0]!.extensions!.code).toBe('GRAPHQL_PARSE_FAILED');
    expect(res.body.errors![0]!.message).toMatch(/5000 tokens/);
  });

  // How deep the parser gets before the stack runs out varies with the stack in use: either answer is a
  // parse error that names its cause, never the engine's "Maximum call stack size exceeded".
  test.each([
    ['lists in an argument', `{ event(slug: ${'['.repeat(2450)}${']'.repeat(2450)}) { id } }`],
    ['objects in an argument', `{ event(slug: ${'{ a: '.repeat(1600)}1${' }'.repeat(1600)}) { id } }`],
    ['selections', `{ ${'a { '.repeat(2400)}b${' }'.repeat(2400)} }`],
  ])('%s nested as deep as the token limit allows: a parse error, quickly', async (_name, query) => {
    const slowest = await slowestHealthCheckDuring(t.server.url, async () => {
      const started = performance.now();
      const res = await run(query);
      expect(performance.now() - started).toBeLessThan(REFUSAL_MS);
      expect(res.status).toBe(200); // a request error in an application/json answer (GraphQL over HTTP)
      expect(res.body.errors).toHaveLength(1);
      expect(res.body.errors![0]!.extensions!.code).toBe('GRAPHQL_PARSE_FAILED');
      expect(res.body.errors![0]!.message).toMatch(
        /^Syntax Error: (the document nests too deeply to parse|Document contains more that 5000 tokens)/,
      );
    });
    expect(slowest).toBeLessThan(HEALTH_MS);
  });

  test("the parser's stack overflow is answered as nesting, not as the engine's words", () => {
    let overflow: unknown;
    try {
      parse(`{ event(slug: ${'['.repeat(100_000)}${']'.repeat(100_000)}) { id } }`);
    } catch (err) {
      overflow = err;
    }
    expect(overflow).toBeInstanceOf(RangeError);
    // As Apollo wraps it: a GraphQLError around the RangeError, inside its own syntax error.
    const wrapped = new GraphQLError('Maximum call stack size exceeded', {
      originalError: new GraphQLError('Maximum call stack size exceeded', { originalError: overflow as Error }),
    });
    const formatted = { message: wrapped.message, extensions: { code: 'GRAPHQL_PARSE_FAILED' } };
    expect(formatError(formatted, wrapped)).toEqual({
      message: 'Syntax Error: the document nests too deeply to parse.',
      extensions: { code: 'GRAPHQL_PARSE_FAILED' },
    });
  });
});

describe('validation errors', () => {
  test('circular fragments are a validation error', async () => {
    const res = await run('{ viewer { ...A } } fragment A on Viewer { ...B } fragment B on Viewer { ...A }');
    expect(res.status).toBe(200);
    expect(res.body.errors![0]!.extensions!.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  test('a document full of validation errors: the first 20 of them, quickly', async () => {
    const query = `{ ${Array.from({ length: 400 }, (_, i) => `unknown${i}`).join(' ')} }`;
    const started = performance.now();
    const res = await run(query);
    expect(performance.now() - started).toBeLessThan(REFUSAL_MS);
    expect(res.status).toBe(200);
    expect(res.body.errors).toHaveLength(21);
    expect(res.body.errors![0]!.message).toBe('Cannot query field "unknown0" on type "Query".');
    expect(res.body.errors![20]!.message).toBe('Too many validation errors, error limit reached. Validation aborted.');
  });

  test('field suggestions ("Did you mean") are off in production, on in development', async () => {
    const query = '{ evnt(slug: "x") { id } }';
    const dev = await run(query);
    expect(dev.body.errors![0]!.message).toMatch(/Did you mean "event"/);
    const prod = await startServer({ NODE_ENV: 'production' });
    try {
      const owner = await prod.stores.users.create({ email: 'p@example.com', name: 'P' });
      const { appToken } = await prod.stores.apps.create({
        ownerId: owner.id,
        name: 'P',
        redirectUris: ['https://p.example/cb'],
      });
      const res = await gql(prod, appToken, query);
      expect(res.body.errors![0]!.extensions!.code).toBe('GRAPHQL_VALIDATION_FAILED');
      expect(res.body.errors![0]!.message).not.toMatch(/Did you mean/);
    } finally {
      await prod.close();
    }
  });
});
