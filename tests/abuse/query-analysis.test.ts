import {
  buildSchema,
  GraphQLError,
  Kind,
  parse,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
} from 'graphql';
import { documentOverLimit, LIMITS, measure } from '../../src/graphql/limits.js';
import { formatError } from '../../src/graphql/plugins/error-masking.js';
import { SCHEMA_SDL } from '../../src/graphql/server.js';
import { useSeededServer } from '../helpers/fixtures.js';
import { gql } from '../helpers/graphql.js';
import { ANALYSIS_MS, fastestRun, HEALTH_MS, REFUSAL_MS } from '../helpers/timing.js';

// Documents built to make the pre-execution analysis (and validation after it) do the most work the
// 5,000-token parser limit allows: each is refused quickly, and the server keeps serving meanwhile.
const t = useSeededServer();
const schema = buildSchema(SCHEMA_SDL);

const times = (n: number, item: (i: number) => string) => Array.from({ length: n }, (_, i) => item(i)).join(' ');

/** Fragment i spreads fragment i+1 `fanOut` times: the expanded query grows as fanOut^depth. */
const fanOutChain = (depth: number, fanOut: number, type: string, leaf: string, root: string) =>
  `${root} ${times(depth, (i) => `fragment F${i} on ${type} { ${times(fanOut, () => `...F${i + 1}`)} }`)} ` +
  `fragment F${depth} on ${type} { ${leaf} }`;

const ofTypeChain = (levels: number) => `${'ofType { '.repeat(levels)}name${' }'.repeat(levels)}`;

const DEPTH = /deeper than the maximum depth/;
const ALIASES = /more than the maximum of \d+ aliases/;
const FIELDS = /more than the maximum of \d+ fields\./;
const DIRECTIVES = /more than the maximum of \d+ directives/;
const REPEATS = /repeats a field more than the maximum/;
const MERGES = /merges more than the maximum/;

/** Most fields of an event, its connection included: 18 selections. */
const EVENT = `id slug name startsAt endsAt timeZone visibility registrations {
  totalCount pageInfo { hasNextPage endCursor } nodes { id createdAt registrant { name } } }`;

/** Name, document, and the limit it must be refused for. */
const WORST_CASES: [string, string, RegExp][] = [
  [
    'a fan-out chain of fragments, 2 spreads each',
    fanOutChain(300, 2, 'Query', 'viewer { tokenKind }', '{ ...F0 }'),
    REPEATS,
  ],
  [
    'a fan-out chain under a connection',
    fanOutChain(200, 2, 'Registration', 'id', '{ event(slug: "public-meetup") { registrations { nodes { ...F0 } } } }'),
    REPEATS,
  ],
  ['a fan-out chain, 8 spreads each', fanOutChain(80, 8, 'Viewer', 'tokenKind', '{ viewer { ...F0 } }'), REPEATS],
  [
    'one fragment spread over and over',
    `{ viewer { ${times(2000, () => '...V')} } } fragment V on Viewer { tokenKind }`,
    REPEATS,
  ],
  ['wide: one field repeated', `{ viewer { ${'tokenKind '.repeat(4900)} } }`, REPEATS],
  [
    'wide: every field of 30 aliased events',
    `{ ${times(30, (i) => `e${i}: event(slug: "public-meetup") { ${EVENT} }`)} }`,
    FIELDS,
  ],
  ['deep: introspection nested as far as it goes', `{ __type(name: "Event") { ${ofTypeChain(600)} } }`, DEPTH],
  [
    'deep: fields and types alternating',
    `{ __type(name: "Event") { ${'fields { type { '.repeat(150)}name${' } }'.repeat(150)} } }`,
    DEPTH,
  ],
  ['many aliases of __typename', `{ ${times(1600, (i) => `a${i}: __typename`)} }`, ALIASES],
  ['150 aliased __schema selections', `{ ${times(150, (i) => `s${i}: __schema { types { name } }`)} }`, ALIASES],
  ['many directives on one field', `{ viewer { tokenKind ${'@include(if: true) '.repeat(700)} } }`, DIRECTIVES],
  [
    'same-named fields with sub-selections (quadratic for OverlappingFieldsCanBeMerged)',
    `{ ${times(400, () => 'event(slug: "a") { registrations { totalCount } }')} }`,
    REPEATS,
  ],
  ['same-named fields with differing arguments', `{ ${times(480, (i) => `event(slug: "${i}") { id }`)} }`, REPEATS],
  [
    'many fragments spread together, each with differing arguments',
    `{ event(slug: "a") { ${times(150, (i) => `...F${i}`)} } } ` +
      times(150, (i) => `fragment F${i} on Event { registrations(first: ${i}) { totalCount } }`),
    REPEATS,
  ],
  [
    'a chain of fragments, each adding one field at the same level',
    `{ ...F0 } ${times(500, (i) => `fragment F${i} on Query { ...F${i + 1} f${i} }`)} fragment F500 on Query { z }`,
    MERGES,
  ],
  [
    'one big fragment spread by many operations',
    `fragment F on Query { ${times(400, (i) => `f${i}`)} } ${times(560, (i) => `query Q${i} { ...F x }`)}`,
    MERGES,
  ],
  [
    'an unused fragment over the limit',
    `{ __typename } fragment Unused on Query { viewer { ${'tokenKind '.repeat(600)} } }`,
    REPEATS,
  ],
  [
    'a second operation over the limit, the first one run',
    `query Small { __typename } query Big { ...F0 } ${fanOutChain(200, 2, 'Query', '__typename', '').trim()}`,
    REPEATS,
  ],
];

test.each(WORST_CASES)('%s: within the token limit', (_name, query) => {
  expect(() => parse(query, { maxTokens: LIMITS.maxTokens })).not.toThrow();
});

test.each(WORST_CASES)('%s: analysed in linear time, stopping at the first limit', (_name, query, reason) => {
  const document = parse(query, { maxTokens: LIMITS.maxTokens });
  expect(documentOverLimit(schema, document)).toMatch(reason);
  // Benchmarks measure speed; this tells a linear walk from one exponential in the document (seconds).
  expect(fastestRun(() => documentOverLimit(schema, document))).toBeLessThan(ANALYSIS_MS);
});

test.each(WORST_CASES)('%s: measure() expands each fragment once', (_name, query) => {
  const document = parse(query, { maxTokens: LIMITS.maxTokens });
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
  const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION) as OperationDefinitionNode;
  const shape = measure(schema, operation, fragments, {});
  expect(shape.fields).toBeGreaterThan(0);
  expect(fastestRun(() => measure(schema, operation, fragments, {}))).toBeLessThan(ANALYSIS_MS);
});

test('measure() counts a fan-out chain exactly, without walking it', () => {
  const document = parse(fanOutChain(40, 2, 'Query', 'viewer { tokenKind }', '{ ...F0 }'));
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
  const shape = measure(schema, document.definitions[0] as OperationDefinitionNode, fragments, {});
  expect(shape).toEqual({ depth: 2, aliases: 0, fields: 2 * 2 ** 40, directives: 0, nodes: 0 });
});

/** Polls /healthz while `work` runs; returns the slowest answer, in ms. */
async function slowestHealthCheckDuring(work: () => Promise<void>): Promise<number> {
  let slowest = 0;
  let done = false;
  const poll = (async () => {
    while (!done) {
      const started = performance.now();
      const res = await fetch(`${t.server.url}/healthz`);
      expect(res.status).toBe(200);
      slowest = Math.max(slowest, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  try {
    await work();
  } finally {
    done = true;
    await poll;
  }
  return slowest;
}

test('over HTTP, every worst case is a quick 400 QUERY_TOO_COMPLEX, and /healthz answers meanwhile', async () => {
  const slowest = await slowestHealthCheckDuring(async () => {
    for (const [name, query, reason] of WORST_CASES) {
      const started = performance.now();
      const operationName = name.startsWith('a second operation') ? 'Small' : name.startsWith('one big') ? 'Q0' : null;
      const res = await fetch(`${t.server.url}/graphql`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${t.fx.tokens.organizerUser}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ query, operationName }),
      });
      const body = (await res.json()) as { errors: { message: string; extensions: { code: string } }[] };
      expect({ name, status: res.status, code: body.errors[0]!.extensions.code }).toEqual({
        name,
        status: 400,
        code: 'QUERY_TOO_COMPLEX',
      });
      expect(body.errors).toHaveLength(1);
      expect(body.errors[0]!.message).toMatch(reason);
      expect({ name, quick: performance.now() - started < REFUSAL_MS }).toEqual({ name, quick: true });
    }
  });
  expect(slowest).toBeLessThan(HEALTH_MS);
});

test('the same worst cases sent all at once: all refused, /healthz still answers', async () => {
  const slowest = await slowestHealthCheckDuring(async () => {
    const statuses = await Promise.all(
      WORST_CASES.map(([, query]) => gql(t.server, t.fx.tokens.organizerApp, query).then((res) => res.status)),
    );
    // The multi-operation cases name no operation here: refused all the same (the document is over a limit).
    expect(statuses).toEqual(WORST_CASES.map(() => 400));
  });
  expect(slowest).toBeLessThan(HEALTH_MS);
});

// How deep the parser gets before the stack runs out varies with the stack in use: either answer is a
// parse error that names its cause, never the engine's "Maximum call stack size exceeded".
test.each([
  ['lists in an argument', `{ event(slug: ${'['.repeat(2450)}${']'.repeat(2450)}) { id } }`],
  ['objects in an argument', `{ event(slug: ${'{ a: '.repeat(1600)}1${' }'.repeat(1600)}) { id } }`],
  ['selections', `{ ${'a { '.repeat(2400)}b${' }'.repeat(2400)} }`],
])('%s nested as deep as the token limit allows: a parse error, quickly', async (_name, query) => {
  const slowest = await slowestHealthCheckDuring(async () => {
    const started = performance.now();
    const res = await gql(t.server, t.fx.tokens.organizerUser, query);
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

test('a document full of validation errors: the first 20 of them, quickly', async () => {
  const query = `{ ${times(400, (i) => `unknown${i}`)} }`;
  const started = performance.now();
  const res = await gql(t.server, t.fx.tokens.organizerUser, query);
  expect(performance.now() - started).toBeLessThan(REFUSAL_MS);
  expect(res.status).toBe(200);
  expect(res.body.errors).toHaveLength(21);
  expect(res.body.errors![0]!.message).toBe('Cannot query field "unknown0" on type "Query".');
  expect(res.body.errors![20]!.message).toBe('Too many validation errors, error limit reached. Validation aborted.');
});

test('queries at each limit run, and the server answers normally afterwards', async () => {
  const run = (query: string) => gql(t.server, t.fx.tokens.organizerUser, query);
  // 27 events of 18 fields and 14 more: exactly the 500 fields, and 27 of the 30 aliases.
  const fields = `{ ${times(27, (i) => `e${i}: event(slug: "public-meetup") { ${EVENT} }`)} viewer { ${'tokenKind '.repeat(13)} } }`;
  const atLimits = [
    fields,
    `{ ${times(LIMITS.maxAliases, (i) => `a${i}: __typename`)} }`,
    `{ viewer { ${'tokenKind '.repeat(LIMITS.maxRepeats - 1)} ...V } } fragment V on Viewer { tokenKind }`,
    `{ __type(name: "Event") { ${ofTypeChain(LIMITS.maxDepth - 2)} } }`,
    `{ viewer { ${times(LIMITS.maxDirectives, () => 'tokenKind @include(if: true)')} } }`,
  ];
  for (const query of atLimits) {
    const res = await run(query);
    expect({ query, status: res.status, errors: res.body.errors }).toEqual({ query, status: 200, errors: undefined });
  }
  expect((await run('{ viewer { tokenKind } }')).body).toEqual({ data: { viewer: { tokenKind: 'USER' } } });
});
