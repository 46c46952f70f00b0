import { buildSchema, Kind, parse, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { costOf, LIMITS } from '../../src/graphql/limits.js';
import { documentOverLimit, measure } from '../../src/graphql/query-shape.js';
import { SCHEMA_SDL } from '../../src/graphql/router.js';
import { addRegistrants, useSeededServer } from '../helpers/fixtures.js';

// A differential test of the cost: for random documents over the schema (literals, variables, variable
// defaults, fragments, inline fragments, aliases), the node count estimated before execution is never
// below the registrations the response carries. Seeded: a failure names the seed that reproduces it.
const t = useSeededServer({ RATE_LIMIT_POINTS: '1000000' });
const schema = buildSchema(SCHEMA_SDL);
const SEED = 20261122;
const DOCUMENTS = 80;

beforeAll(async () => {
  await addRegistrants(t.server, t.fx.publicEvent.id, 1000, { prefix: 'cost', name: 'Cost' });
});

/** mulberry32: a small seeded PRNG, so every run draws the same documents. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return { chance: (p: number) => next() < p, int, pick: <T>(items: readonly T[]): T => items[int(items.length)]! };
}

const SIZES = [0, 1, 2, 5, 50, 100, 250, 400, 1000] as const;
// Mostly the event with 1,005 registrations: its pages come back as full as `first` allows.
const SLUGS = ['public-meetup', 'public-meetup', 'public-meetup', 'private-retreat', 'no-such-event'] as const;

interface Generated {
  query: string;
  variables: Record<string, unknown>;
}

/** One random document: events under aliases, their connections sized every way a client can. */
function generate(random: ReturnType<typeof prng>): Generated {
  const definitions: string[] = [];
  const fragments: string[] = [];
  const variables: Record<string, unknown> = {};
  let counter = 0;
  // Now and then a heavy one, with many big pages: some of those pass the cost limit.
  const heavy = random.chance(0.2);
  const size = () => (heavy ? 1000 : random.pick(SIZES));

  // How `first` is given: a literal, a variable (sent, sent as null, or left to its default), or not at all.
  const firstArgument = (): string => {
    const how = heavy ? 1 + random.int(3) : random.int(4);
    if (how === 0) return '';
    if (how === 1) return `(first: ${size()})`;
    const name = `n${counter++}`;
    const withDefault = random.chance(0.6);
    definitions.push(`$${name}: Int${withDefault ? ` = ${size()}` : ''}`);
    const sent = random.int(3);
    if (sent === 0) variables[name] = size();
    if (sent === 1) variables[name] = null;
    return `(first: $${name})`;
  };

  // Selections inside a named fragment, an inline fragment (typed or not), or written out.
  const wrap = (type: string, body: string): string => {
    const how = random.int(4);
    if (how === 0) {
      const name = `F${counter++}`;
      fragments.push(`fragment ${name} on ${type} { ${body} }`);
      return `...${name}`;
    }
    if (how === 1) return `... on ${type} { ${body} }`;
    if (how === 2) return `... { ${body} }`;
    return body;
  };

  const registration = () =>
    wrap('Registration', random.pick(['id', 'createdAt', 'id registrant { name }', 'registrant { id email }']));

  const connectionBody = (): string => {
    const parts = ['__typename']; // how the test finds each connection in the response
    if (random.chance(0.6)) parts.push(`${random.chance(0.3) ? 'list: ' : ''}nodes { ${registration()} }`);
    if (random.chance(0.4)) parts.push(`edges { cursor node { ${registration()} } }`);
    if (random.chance(0.3)) parts.push('totalCount');
    if (random.chance(0.3)) parts.push('pageInfo { hasNextPage endCursor }');
    return wrap('RegistrationConnection', parts.join(' '));
  };

  const eventBody = (): string => {
    const parts = [random.pick(['id', 'slug', 'name', 'id name visibility'])];
    const connections = heavy ? 1 : random.int(3);
    for (let i = 0; i < connections; i++) parts.push(`r${i}: registrations${firstArgument()} { ${connectionBody()} }`);
    if (random.chance(0.3)) parts.push(`registrations${firstArgument()} { ${connectionBody()} }`);
    return wrap('Event', parts.join(' '));
  };

  const roots: string[] = [];
  const events = heavy ? 8 + random.int(4) : 1 + random.int(5);
  for (let i = 0; i < events; i++) roots.push(`e${i}: event(slug: "${random.pick(SLUGS)}") { ${eventBody()} }`);
  if (random.chance(0.3)) roots.push('viewer { tokenKind }');
  if (random.chance(0.3)) roots.push('__typename');
  const header = definitions.length ? `query Random(${definitions.join(', ')})` : 'query Random';
  return { query: `${header} { ${roots.join(' ')} } ${fragments.join(' ')}`, variables };
}

/** Registrations in a response: each connection object's longest list (nodes, edges, under any alias). */
function registrationsReturned(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + registrationsReturned(item), 0);
  if (value === null || typeof value !== 'object') return 0;
  const entries = Object.values(value);
  if ((value as { __typename?: unknown }).__typename === 'RegistrationConnection') {
    return Math.max(0, ...entries.map((v) => (Array.isArray(v) ? v.length : 0)));
  }
  return entries.reduce((sum: number, v) => sum + registrationsReturned(v), 0);
}

function estimate({ query, variables }: Generated): number {
  const document = parse(query);
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
  const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION) as OperationDefinitionNode;
  return measure(schema, operation, fragments, variables).nodes;
}

test(`for ${DOCUMENTS} random documents (seed ${SEED}), the estimate is never below what comes back`, async () => {
  const random = prng(SEED);
  const failures: unknown[] = [];
  let refused = 0;
  let returnedSome = 0;
  for (let i = 0; i < DOCUMENTS; i++) {
    const generated = generate(random);
    const nodes = estimate(generated);
    const res = await fetch(`${t.server.url}/graphql`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${t.fx.tokens.organizerUser}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...generated, extensions: { cost: true } }),
    });
    const body = (await res.json()) as {
      data?: unknown;
      errors?: { message: string; extensions: { code: string } }[];
      extensions?: { cost: { requested: number; actual: number } };
    };
    const requested = costOf(nodes);
    const overShape = documentOverLimit(schema, parse(generated.query));
    if (overShape || requested > LIMITS.maxCost) {
      refused += 1;
      const reason = overShape ?? `Query cost ${requested} exceeds the maximum of ${LIMITS.maxCost}.`;
      if (res.status !== 400 || body.errors?.[0]?.message !== reason) {
        failures.push({ i, why: `should be refused: ${reason}`, generated, status: res.status, body });
      }
      continue;
    }
    const returned = registrationsReturned(body.data);
    if (returned > 0) returnedSome += 1;
    const problems = [
      res.status !== 200 || body.errors ? 'not answered cleanly' : '',
      returned > nodes ? `estimated ${nodes} nodes, returned ${returned}` : '',
      body.extensions?.cost.requested !== requested ? `server asked ${body.extensions?.cost.requested}` : '',
      (body.extensions?.cost.actual ?? 0) > requested ? `server counted ${body.extensions?.cost.actual}` : '',
    ].filter(Boolean);
    if (problems.length) failures.push({ i, problems, generated, status: res.status, errors: body.errors });
  }
  expect(failures).toEqual([]);
  // The draw exercises both sides: documents refused for their cost, and documents returning registrations.
  expect(refused).toBeGreaterThan(0);
  expect(returnedSome).toBeGreaterThan(DOCUMENTS / 4);
});
