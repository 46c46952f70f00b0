import { makeExecutableSchema } from '@graphql-tools/schema';
import {
  buildClientSchema,
  getIntrospectionQuery,
  isInterfaceType,
  isObjectType,
  Kind,
  parse,
  printSchema,
  type GraphQLSchema,
  type IntrospectionOptions,
  type IntrospectionQuery,
  type OperationDefinitionNode,
} from 'graphql';
import { LIMITS } from '../../src/graphql/limits.js';
import { measure } from '../../src/graphql/query-shape.js';
import { resolvers } from '../../src/graphql/resolvers/index.js';
import { SCHEMA_SDL } from '../../src/graphql/router.js';
import { useSeededServer, type Fixtures } from '../helpers/fixtures.js';
import { REFUSAL_MS } from '../helpers/timing.js';

// The introspection schema tools send works with any valid token and costs the minimum; any other
// introspection counts toward every limit and pays for its lists like a connection.
const t = useSeededServer();
const schema = makeExecutableSchema({ typeDefs: SCHEMA_SDL, resolvers });
const TOKENS: (keyof Fixtures['tokens'])[] = ['organizerUser', 'otherUser', 'organizerApp', 'otherApp'];

interface Answer {
  status: number;
  body: {
    data?: Record<string, unknown>;
    errors?: { message: string; extensions: { code: string; cost?: { requested: number } } }[];
    extensions?: { cost: { requested: number; actual: number; maximum: number } };
  };
}

async function post(query: string, token: keyof Fixtures['tokens'] = 'organizerUser'): Promise<Answer> {
  const res = await fetch(`${t.server.url}/graphql`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${t.fx.tokens[token]}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ query, extensions: { cost: true } }),
  });
  return { status: res.status, body: (await res.json()) as Answer['body'] };
}

// The cost rule restated, not imported: a list counts as many nodes as it can hold in this schema (26
// types, at most 11 fields on a type, 2 arguments on a field today), multiplied down the tree; the cost is
// nodes / 100, at least 1.
const TYPES = Object.keys(schema.getTypeMap()).length;
const withFields = Object.values(schema.getTypeMap()).filter((t) => isObjectType(t) || isInterfaceType(t));
const FIELDS = Math.max(...withFields.map((t) => Object.keys(t.getFields()).length));
const ARGS = Math.max(...withFields.flatMap((t) => Object.values(t.getFields()).map((f) => f.args.length)));
/** __type lookups of Event in one query: as many as stay within the cost limit at this schema's size. */
const LOOKUPS = 12;
const costOf = (nodes: number) => Math.max(1, Math.round(nodes / 100));

const ALL_OPTIONS: IntrospectionOptions = {
  descriptions: true,
  specifiedByUrl: true,
  directiveIsRepeatable: true,
  schemaDescription: true,
  inputValueDeprecation: true,
  oneOf: true,
};

// What the tools send: graphql-codegen and Sandbox use graphql-js's query (codegen with these options),
// get-graphql-schema its defaults, rover its own with 7 levels of `ofType`.
const TOOL_QUERIES: [string, string][] = [
  ['getIntrospectionQuery with every option', getIntrospectionQuery(ALL_OPTIONS)],
  ['getIntrospectionQuery with its defaults', getIntrospectionQuery()],
  [
    'a rover-style query (7 levels of ofType, deprecated arguments)',
    getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true, typeDepth: 7 }).replace(
      'query IntrospectionQuery',
      'query GraphIntrospectQuery',
    ),
  ],
];

describe('the standard introspection query', () => {
  /** Every type, and every field of every object type, by name. */
  const outline = (s: GraphQLSchema) =>
    Object.values(s.getTypeMap()).map((type) => [type.name, isObjectType(type) ? Object.keys(type.getFields()) : []]);

  test.each(TOOL_QUERIES)('%s: the whole schema, for the minimum cost', async (_name, query) => {
    const res = await post(query);
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(outline(buildClientSchema(res.body.data as unknown as IntrospectionQuery))).toEqual(outline(schema));
    expect(res.body.extensions!.cost.requested).toBe(1);
  });

  test('with every option on, exactly the schema the server runs', async () => {
    const res = await post(getIntrospectionQuery(ALL_OPTIONS));
    expect(printSchema(buildClientSchema(res.body.data as unknown as IntrospectionQuery))).toBe(printSchema(schema));
  });

  test.each(TOKENS)('works with any valid token: %s', async (token) => {
    const res = await post(getIntrospectionQuery(ALL_OPTIONS), token);
    expect(res.status).toBe(200);
    expect((res.body.data as unknown as IntrospectionQuery).__schema.queryType.name).toBe('Query');
  });

  test('it fits the limits it counts toward: depth exactly, fields with room to spare', () => {
    const document = parse(getIntrospectionQuery(ALL_OPTIONS));
    const fragments = Object.fromEntries(
      document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d]] : [])),
    );
    const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION);
    const shape = measure(schema, operation as OperationDefinitionNode, fragments, {});
    expect(shape.depth).toBe(LIMITS.maxDepth);
    expect(shape.fields).toBeLessThan(LIMITS.maxFields / 2);
    expect(shape.aliases).toBe(0);
  });
});

describe('any other introspection pays', () => {
  test('150 aliased __schema selections: refused at the alias limit, quickly', async () => {
    const query = `{ ${Array.from({ length: 150 }, (_, i) => `s${i}: __schema { types { name } }`).join(' ')} }`;
    const started = performance.now();
    const res = await post(query);
    expect(performance.now() - started).toBeLessThan(REFUSAL_MS);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      expect.objectContaining({
        message: `Query has more than the maximum of ${LIMITS.maxAliases} aliases.`,
        extensions: { code: 'QUERY_TOO_COMPLEX' },
      }),
    ]);
  });

  test('aliased __schema selections within the alias limit pay for their lists: over the cost limit', async () => {
    const lists = (i: number) => `s${i}: __schema { types { fields { args { name } } } }`;
    const query = `{ ${Array.from({ length: 30 }, (_, i) => lists(i)).join(' ')} }`;
    // Each: the types, their fields, the fields' arguments (26 + 286 + 572 nodes); 30 of them: 265.
    const cost = costOf(30 * (TYPES + TYPES * FIELDS + TYPES * FIELDS * ARGS));
    expect(cost).toBeGreaterThan(LIMITS.maxCost);
    const res = await post(query);
    expect(res.status).toBe(400);
    expect(res.body.errors![0]!.extensions.code).toBe('QUERY_TOO_COMPLEX');
    expect(res.body.errors![0]!.message).toBe(`Query cost ${cost} exceeds the maximum of ${LIMITS.maxCost}.`);
    expect(res.body.errors![0]!.extensions.cost!.requested).toBe(cost);
  });

  test('an aliased __schema is not the free one', async () => {
    const free = await post('{ __schema { types { fields { name } } } }');
    const aliased = await post('{ s: __schema { types { fields { name } } } }');
    expect(free.body.extensions!.cost.requested).toBe(1);
    // 26 types with up to 11 fields each: 312 nodes, cost 3.
    expect(aliased.body.extensions!.cost.requested).toBe(costOf(TYPES + TYPES * FIELDS));
    expect(aliased.body.extensions!.cost.requested).toBeGreaterThan(1);
  });

  test('__type lookups pay for their lists, and the rate limit is charged what they cost', async () => {
    const lookup = (i: number) =>
      `t${i}: __type(name: "Event") { fields { args { name } type { fields { args { name } } } } }`;
    const query = `{ ${Array.from({ length: LOOKUPS }, (_, i) => lookup(i)).join(' ')} rateLimit { cost } }`;
    const res = await post(query, 'otherApp');
    expect(res.status).toBe(200);
    // Each: a type's fields, their arguments, their types' fields, and those fields' arguments (660 nodes); 12: 79.
    const cost = costOf(LOOKUPS * (FIELDS + FIELDS * ARGS + FIELDS * FIELDS + FIELDS * FIELDS * ARGS));
    expect(cost).toBeGreaterThan(10);
    expect(res.body.extensions!.cost.requested).toBe(cost);
    expect(res.body.data!.rateLimit).toEqual({ cost });
  });

  test('a fragment spread inside a list pays for every item, as if written out', async () => {
    const lookup = (i: number) => `t${i}: __type(name: "Event") { fields { ...F } }`;
    const fragment = 'fragment F on __Field { args { name } type { fields { args { name } } } }';
    const res = await post(`{ ${Array.from({ length: LOOKUPS }, (_, i) => lookup(i)).join(' ')} } ${fragment}`);
    expect(res.status).toBe(200);
    // The __type lookups above, with each field's part in F: 660 nodes each, not 70.
    const cost = costOf(LOOKUPS * (FIELDS + FIELDS * ARGS + FIELDS * FIELDS + FIELDS * FIELDS * ARGS));
    expect(res.body.extensions!.cost.requested).toBe(cost);
  });

  test('introspection nested past the depth limit is refused', async () => {
    const res = await post(getIntrospectionQuery({ ...ALL_OPTIONS, typeDepth: 12 }));
    expect(res.status).toBe(400);
    expect(res.body.errors![0]!.message).toBe(`Query nests deeper than the maximum depth of ${LIMITS.maxDepth}.`);
  });

  test('a __schema inside a fragment pays', async () => {
    const query = '{ ...S } fragment S on Query { __schema { types { fields { name } } } }';
    const res = await post(query);
    expect(res.status).toBe(200);
    expect(res.body.extensions!.cost.requested).toBe(costOf(TYPES + TYPES * FIELDS));
  });
});

describe('__typename', () => {
  test('works everywhere: root, objects, connections, fragments, inline fragments', async () => {
    const query = `query { __typename viewer { __typename app { __typename } }
      event(slug: "public-meetup") { __typename ...E registrations(first: 1) { __typename
        edges { __typename node { ... on Registration { __typename registrant { __typename } } } }
        pageInfo { __typename } } } }
      fragment E on Event { t: __typename }`;
    const res = await post(query);
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data).toEqual({
      __typename: 'Query',
      viewer: { __typename: 'Viewer', app: { __typename: 'ViewerApp' } },
      event: {
        __typename: 'Event',
        t: 'Event',
        registrations: {
          __typename: 'RegistrationConnection',
          edges: [
            {
              __typename: 'RegistrationEdge',
              node: { __typename: 'Registration', registrant: { __typename: 'Registrant' } },
            },
          ],
          pageInfo: { __typename: 'PageInfo' },
        },
      },
    });
  });

  test('costs nothing, but counts as a field and its alias as an alias', async () => {
    const ok = await post(`{ ${Array.from({ length: LIMITS.maxAliases }, (_, i) => `a${i}: __typename`).join(' ')} }`);
    expect(ok.status).toBe(200);
    expect(ok.body.extensions!.cost.requested).toBe(1);
    const over = await post(
      `{ ${Array.from({ length: LIMITS.maxAliases + 1 }, (_, i) => `a${i}: __typename`).join(' ')} }`,
    );
    expect(over.status).toBe(400);
    expect(over.body.errors![0]!.extensions.code).toBe('QUERY_TOO_COMPLEX');
  });
});
