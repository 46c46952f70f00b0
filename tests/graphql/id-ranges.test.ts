import { encodeCursor, type CursorKind } from '../../src/graphql/pagination.js';
import { globalId } from '../../src/lib/ids.js';
import { cli } from '../helpers/cli.js';
import { seedFixtures, type Fixtures } from '../helpers/fixtures.js';
import { gql } from '../helpers/graphql.js';
import { startServer, type TestServer } from '../helpers/harness.js';
import { capturedLog } from '../helpers/log-lines.js';

// Ids and cursors name rows by their integer primary key, a 32-bit column on PostgreSQL (knex `increments`):
// a number outside 1..2147483647 was never given out. It must read as such on both databases — null for an
// id, BAD_USER_INPUT for a cursor, a one-line CLI error — never a database error with its SQL.
const { logger, lines: LOG_LINES } = capturedLog();
let server: TestServer;
let fx: Fixtures;

beforeAll(async () => {
  server = await startServer({}, { logger });
  fx = await seedFixtures(server);
});

afterAll(() => server.close());

afterEach(async () => {
  // Whatever a test sent, nothing it did is an error in the log (a database error would be logged with its SQL).
  await new Promise((resolve) => setImmediate(resolve));
  const lines = LOG_LINES.splice(0);
  expect(lines.filter((l) => l.level >= 50)).toEqual([]);
  expect(JSON.stringify(lines)).not.toMatch(/out of range|select /i);
});

const NEVER_GIVEN_OUT = [999_999_999_999_999, 2_147_483_648, 4_294_967_296, 0];
/** The largest id the column holds: well formed, in range, and not a row. */
const IN_RANGE_MISSING = 2_147_483_647;

describe('node(id:) and nodes(ids:): an id outside the column is one that was never given out', () => {
  const NODE = 'query($id: ID!) { node(id: $id) { __typename id } }';
  const NODES = 'query($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }';

  test.each(['Event', 'Registration'].flatMap((type) => [...NEVER_GIVEN_OUT, IN_RANGE_MISSING].map((n) => [type, n])))(
    'node(id: %s:%d) is null, with no error',
    async (type, n) => {
      const res = await gql(server, fx.tokens.organizerUser, NODE, { id: globalId(type as string, n as number) });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: { node: null } });
    },
  );

  test('nodes(ids:) answers null in their places, and the real ones beside them', async () => {
    const real = globalId('Event', fx.publicEvent.id);
    const ids = [
      globalId('Event', 999_999_999_999_999),
      real,
      globalId('Registration', 999_999_999_999_999),
      globalId('Event', 2_147_483_648),
      globalId('Registration', 2_147_483_648),
      globalId('Event', IN_RANGE_MISSING),
    ];
    const res = await gql(server, fx.tokens.organizerUser, NODES, { ids });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { nodes: [null, { __typename: 'Event', id: real }, null, null, null, null] } });
  });
});

describe('a cursor outside the column is BAD_USER_INPUT, as every other cursor not given out', () => {
  const EVENTS = 'query($after: String) { events(after: $after) { nodes { slug } } }';
  const REGISTRATIONS = `query($after: String, $before: String, $last: Int) {
    event(slug: "public-meetup") { registrations(after: $after, before: $before, last: $last) { nodes { id } } } }`;

  const cursors = (kind: CursorKind) => NEVER_GIVEN_OUT.map((n) => [n, encodeCursor(n, kind)] as const);

  test.each(cursors('evt'))('events(after: cursor of %d)', async (_n, after) => {
    const res = await gql(server, fx.tokens.organizerUser, EVENTS, { after });
    expect(res.status).toBe(200);
    expect(res.body.data).toBeNull();
    expect(res.body.errors).toEqual([
      expect.objectContaining({
        message: '`after` is not a cursor this API gave out.',
        path: ['events'],
        extensions: expect.objectContaining({ code: 'BAD_USER_INPUT' }),
      }),
    ]);
  });

  test.each(cursors('reg').flatMap(([n, c]) => [[n, 'after', c] as const, [n, 'before', c] as const]))(
    'registrations with a cursor of %d as `%s`',
    async (_n, argument, cursor) => {
      const variables = argument === 'after' ? { after: cursor } : { before: cursor, last: 1 };
      const res = await gql(server, fx.tokens.organizerUser, REGISTRATIONS, variables);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ event: { registrations: null } });
      expect(res.body.errors).toEqual([
        expect.objectContaining({
          message: `\`${argument}\` is not a cursor this API gave out.`,
          path: ['event', 'registrations'],
          extensions: expect.objectContaining({ code: 'BAD_USER_INPUT' }),
        }),
      ]);
    },
  );

  test('the largest id the column holds is a cursor: after it, an empty page; before it, the last page', async () => {
    const events = await gql(server, fx.tokens.organizerUser, EVENTS, { after: encodeCursor(IN_RANGE_MISSING, 'evt') });
    expect(events.body).toEqual({ data: { events: { nodes: [] } } });
    const after = await gql(server, fx.tokens.organizerUser, REGISTRATIONS, { after: encodeCursor(IN_RANGE_MISSING) });
    expect(after.body).toEqual({ data: { event: { registrations: { nodes: [] } } } });
    const before = await gql(server, fx.tokens.organizerUser, REGISTRATIONS, {
      before: encodeCursor(IN_RANGE_MISSING),
      last: 2,
    });
    expect(before.body.errors).toBeUndefined();
    expect((before.body.data!.event as { registrations: { nodes: unknown[] } }).registrations.nodes).toHaveLength(2);
  });
});

describe('CLI list --after: a cursor outside the column is a one-line error, never SQL', () => {
  const LISTS: [string, string[]][] = [
    ['user list', ['user', 'list']],
    ['event list', ['event', 'list']],
    ['app list', ['app', 'list']],
    ['registration list', ['registration', 'list', '--event', 'public-meetup']],
  ];

  test.each(
    LISTS.flatMap(([name, args]) => ['999999999999999', '2147483648', '0'].map((after) => [name, after, args])),
  )('%s --after %s', async (_name, after, args) => {
    for (const json of [[], ['--json']]) {
      const res = await cli(server.config.databaseUrl, [...(args as string[]), '--after', after as string, ...json]);
      expect(res.code).not.toBe(0);
      expect(res.stdout).toBe('');
      expect(res.stderr).toBe("roster: --after must be the 'next' value a previous page printed\n");
    }
  });

  test.each(LISTS)('%s --after 2147483647: an empty last page', async (_name, args) => {
    const res = await cli(server.config.databaseUrl, [...args, '--after', '2147483647', '--json']);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.json.next).toBeNull();
  });
});
