import { buildSchema, Kind, parse, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { LIMITS } from '../../src/graphql/limits.js';
import { documentOverLimit, measure } from '../../src/graphql/query-shape.js';
import { SCHEMA_SDL } from '../../src/graphql/router.js';
import { useSeededServer } from '../helpers/fixtures.js';
import { gql } from '../helpers/graphql.js';
import { ANALYSIS_MS, fastestRun, HEALTH_MS, REFUSAL_MS, slowestHealthCheckDuring } from '../helpers/timing.js';

// Documents built to make the pre-execution analysis (and validation after it) do the most work the
// 5,000-token parser limit allows: each is refused quickly, and the server keeps serving meanwhile.
// (Each limit at its boundary: query-limits.)
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

test('over HTTP, every worst case is a quick 400 QUERY_TOO_COMPLEX, and /healthz answers meanwhile', async () => {
  const slowest = await slowestHealthCheckDuring(t.server.url, async () => {
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
  const slowest = await slowestHealthCheckDuring(t.server.url, async () => {
    const statuses = await Promise.all(
      WORST_CASES.map(([, query]) => gql(t.server, t.fx.tokens.organizerApp, query).then((res) => res.status)),
    );
    // The multi-operation cases name no operation here: refused all the same (the document is over a limit).
    expect(statuses).toEqual(WORST_CASES.map(() => 400));
  });
  expect(slowest).toBeLessThan(HEALTH_MS);
});
