import type { GatewayGraphQLRequestContext } from '@apollo/server-gateway-interface';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { execute, getOperationAST, parse, validate, type ExecutionResult } from 'graphql';
import { createViewerLookup } from '../../src/services/bearer.js';
import { createServices } from '../../src/services/services.js';
import { buildContext } from '../../src/graphql/context.js';
import { jitExecutor } from '../../src/graphql/jit-executor.js';
import { resolvers } from '../../src/graphql/resolvers/index.js';
import { SCHEMA_SDL } from '../../src/graphql/router.js';
import { createAccessTokenLookup } from '../../src/oidc/access-token-lookup.js';
import { useSeededServer, type Fixtures } from '../helpers/fixtures.js';
import { gql } from '../helpers/graphql.js';

// The compiled executor must answer exactly as graphql-js does: data, errors, paths and locations.
const t = useSeededServer();
const schema = makeExecutableSchema({ typeDefs: SCHEMA_SDL, resolvers });
const jit = jitExecutor(schema);

async function contextFor(token: keyof Fixtures['tokens']) {
  const resolve = createViewerLookup(t.server.stores, createAccessTokenLookup(t.server), {
    explorerName: 'Roster explorer',
  });
  const { viewer } = await resolve(t.fx.tokens[token]);
  return buildContext(viewer, createServices(t.server.stores), 'test', {});
}

/** Runs a document both ways, each with its own fresh context; returns both results as JSON. */
async function bothWays(token: keyof Fixtures['tokens'], query: string, variables: Record<string, unknown>) {
  const document = parse(query);
  const viaJs = await execute({
    schema,
    document,
    variableValues: variables,
    contextValue: await contextFor(token),
  });
  const viaJit = await jit({
    document,
    operation: getOperationAST(document) ?? undefined,
    operationName: null,
    request: { query, variables },
    context: await contextFor(token),
  } as unknown as GatewayGraphQLRequestContext);
  const json = (r: ExecutionResult) => JSON.parse(JSON.stringify(r)) as ExecutionResult;
  return { js: json(viaJs), jit: json(viaJit as ExecutionResult) };
}

const any = expect.any(String) as string;

// Every case names its variables: test.each would hand a missing one over as jest's `done`. The last item
// is the answer graphql-js must give (ids and times as any string), so a case that comes back empty fails.
const CASES: [string, keyof Fixtures['tokens'], string, Record<string, unknown>, ExecutionResult][] = [
  [
    'fragments, aliases, __typename and scalars',
    'organizerUser',
    `query($slug: String!) { e: event(slug: $slug) { __typename ...F registrations(first: 2) {
       edges { cursor node { id createdAt registrant { ... on Registrant { id name email activationState } } } }
       pageInfo { hasNextPage endCursor } totalCount } } }
     fragment F on Event { id slug name startsAt endsAt timeZone visibility }`,
    { slug: 'public-meetup' },
    {
      data: {
        e: {
          __typename: 'Event',
          id: any,
          slug: 'public-meetup',
          name: 'Public Meetup',
          startsAt: null,
          endsAt: null,
          timeZone: null,
          visibility: 'PUBLIC',
          registrations: {
            edges: [
              {
                cursor: any,
                node: {
                  id: any,
                  createdAt: any,
                  registrant: { id: any, name: 'Ann Active', email: 'ann@example.com', activationState: 'active' },
                },
              },
              {
                cursor: any,
                node: {
                  id: any,
                  createdAt: any,
                  registrant: { id: any, name: 'Pat Pending', email: 'pat@example.com', activationState: 'pending' },
                },
              },
            ],
            pageInfo: { hasNextPage: true, endCursor: any },
            totalCount: 5,
          },
        },
      },
    },
  ],
  [
    '@include and @skip with variables',
    'organizerApp',
    `query($slug: String!, $yes: Boolean!) { event(slug: $slug) { name @include(if: $yes) slug @skip(if: $yes)
       registrations(first: 3) { nodes { registrant { email name } } } } }`,
    { slug: 'public-meetup', yes: false },
    {
      data: {
        event: {
          slug: 'public-meetup',
          registrations: {
            nodes: [
              { registrant: { email: null, name: 'Ann Active' } },
              { registrant: { email: null, name: 'Pat Pending' } },
              { registrant: { email: null, name: 'Dee Deactivated' } },
            ],
          },
        },
      },
    },
  ],
  [
    'a FORBIDDEN error in a nested field, with its path',
    'otherUser',
    `query($slug: String!) { event(slug: $slug) { slug registrations { totalCount } } }`,
    { slug: 'public-meetup' },
    {
      errors: [
        {
          message: 'Only the organizers of this event may read its registrations.',
          locations: [{ line: 1, column: 51 }],
          path: ['event', 'registrations'],
          extensions: { code: 'FORBIDDEN' },
        },
      ],
      data: { event: { slug: 'public-meetup', registrations: null } },
    } as unknown as ExecutionResult,
  ],
  [
    'a default variable value and a missing event',
    'otherApp',
    `query($slug: String! = "nope") { event(slug: $slug) { id } }`,
    {},
    { data: { event: null } },
  ],
  [
    'the viewer and introspection',
    'organizerUser',
    '{ viewer { tokenKind scopes user { id name } app { name } } __schema { queryType { name } } }',
    {},
    {
      data: {
        viewer: {
          tokenKind: 'USER',
          scopes: ['openid', 'email', 'profile'],
          user: { id: any, name: 'Olive Organizer' },
          app: { name: 'Organizer Badge Printer' },
        },
        __schema: { queryType: { name: 'Query' } },
      },
    },
  ],
  [
    'Query.events, paged',
    'otherApp',
    `query($after: String) { events(first: 1, after: $after) { nodes { slug visibility }
       edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`,
    { after: null },
    {
      data: {
        events: {
          nodes: [{ slug: 'public-meetup', visibility: 'PUBLIC' }],
          edges: [{ cursor: any, node: { id: any } }],
          pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: any, endCursor: any },
        },
      },
    },
  ],
  [
    'node and nodes: the Node interface resolved to each type, hidden and malformed ids null',
    'organizerUser',
    `query($ids: [ID!]!, $one: ID!) { node(id: $one) { __typename id ... on Event { slug } }
       nodes(ids: $ids) { __typename id ... on Registrant { name email } ... on Event { visibility } } }`,
    { one: 'RXZlbnQ6MQ', ids: ['RXZlbnQ6Mg', 'nope!', 'RXZlbnQ6OTk5'] },
    {
      data: {
        node: { __typename: 'Event', id: 'RXZlbnQ6MQ', slug: 'public-meetup' },
        nodes: [{ __typename: 'Event', id: 'RXZlbnQ6Mg', visibility: 'PRIVATE' }, null, null],
      },
    },
  ],
  [
    'backward paging on registrations, with createdAt',
    'organizerUser',
    `query($slug: String!) { event(slug: $slug) { registrations(last: 2) {
       nodes { id createdAt registrant { name } } pageInfo { hasNextPage hasPreviousPage startCursor } } } }`,
    { slug: 'public-meetup' },
    {
      data: {
        event: {
          registrations: {
            nodes: [
              { id: any, createdAt: any, registrant: { name: 'Nora No-Email' } },
              { id: any, createdAt: any, registrant: { name: 'Otto Other' } },
            ],
            pageInfo: { hasNextPage: false, hasPreviousPage: true, startCursor: any },
          },
        },
      },
    },
  ],
  [
    'first and last together: a BAD_USER_INPUT error with its path',
    'organizerUser',
    `query($slug: String!) { event(slug: $slug) { slug registrations(first: 1, last: 1) { totalCount } } }`,
    { slug: 'public-meetup' },
    {
      errors: [
        {
          message: 'Passing both `first` and `last` to paginate the `registrations` connection is not supported.',
          locations: [{ line: 1, column: 51 }],
          path: ['event', 'registrations'],
          extensions: { code: 'BAD_USER_INPUT', argumentName: 'last' },
        },
      ],
      data: { event: { slug: 'public-meetup', registrations: null } },
    } as unknown as ExecutionResult,
  ],
];

test.each(CASES)('%s', async (_name, token, query, variables, expected) => {
  // Valid, as Apollo would require before executing: execute() alone skips a field the schema lacks.
  expect(validate(schema, parse(query))).toEqual([]);
  const { js, jit: compiled } = await bothWays(token, query, variables);
  expect(compiled).toEqual(js);
  // The case exercises what it says: the data it names came back, and an error case has its error.
  expect(js).toEqual(expected);
});

test('an error thrown under the jit keeps its path and code through Apollo', async () => {
  const res = await gql(
    t.server,
    t.fx.tokens.otherUser,
    'query($s: String!) { event(slug: $s) { registrations { totalCount } } }',
    {
      s: 'public-meetup',
    },
  );
  expect(res.body.errors).toEqual([
    expect.objectContaining({ path: ['event', 'registrations'], extensions: { code: 'FORBIDDEN' } }),
  ]);
});

test('under the jit, Node resolves to its type and nodes keeps order and nulls', async () => {
  const { jit: compiled } = await bothWays(
    'organizerUser',
    'query($ids: [ID!]!) { nodes(ids: $ids) { __typename ... on Registrant { name } } }',
    { ids: [Buffer.from(`Event:${t.fx.publicEvent.id}`).toString('base64url'), 'x@y', t.fx.registrants[0]!.uid] },
  );
  expect(compiled.data).toEqual({
    nodes: [{ __typename: 'Event' }, null, { __typename: 'Registrant', name: 'Ann Active' }],
  });
});
