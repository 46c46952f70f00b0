import { buildSchema, type GraphQLObjectType } from 'graphql';
import { SCHEMA_SDL } from '../../src/graphql/router.js';
import * as migration from '../../src/stores/migrations/20261206000000_user_writes_keep_answers.js';
import { isSqlite } from '../../src/stores/dialect.js';
import { useSeededServer } from '../helpers/fixtures.js';
import { gql, SEED_QUERY } from '../helpers/graphql.js';
import { capturedLog } from '../helpers/log-lines.js';
import { useOtherConnection } from '../helpers/other-connection.js';
import { askReplayed } from '../helpers/replays.js';

// A write to a user that no answer shows (a password set or reset, an email verified, a picture) must not
// move the data epoch, which ends every replayed answer and every row kept at it, at every instance: a user
// resetting their password could otherwise do that at will. A write an answer shows still moves it.
const { logger, lines: logged } = capturedLog();
const t = useSeededServer({ RATE_LIMIT_POINTS: '100000' }, { logger });
const other = useOtherConnection(t);
const VARS = { slug: 'public-meetup' };

const epoch = async () => String((await other.db('data_epoch').where({ id: 1 }).first('value')).value);
const ann = () => t.fx.registrants[0]!;

/** Asks `query` twice; the second must be replayed. Returns the answer's text. */
async function replayedAnswer(query = SEED_QUERY, variables: Record<string, unknown> = VARS): Promise<string> {
  const first = await gql(t.server, t.fx.tokens.organizerUser, query, variables);
  expect(first.status).toBe(200);
  const again = await askReplayed(logged, () => gql(t.server, t.fx.tokens.organizerUser, query, variables));
  expect(again.replayed).toBe(true);
  return again.result.text;
}

async function stillReplayed(text: string, query = SEED_QUERY, variables: Record<string, unknown> = VARS) {
  const after = await askReplayed(logged, () => gql(t.server, t.fx.tokens.organizerUser, query, variables));
  expect(after.replayed).toBe(true);
  expect(after.result.text).toBe(text);
}

test("a registrant's password reset or set keeps every replayed answer, at the same data epoch", async () => {
  const text = await replayedAnswer();
  const was = await epoch();
  await t.server.services.users.resetPassword(ann().uid, 'a brand new passphrase');
  await other.stores.users.setPasswordHash(ann().id, 'not-a-real-hash');
  expect(await epoch()).toBe(was);
  await stillReplayed(text);
});

const EVENTS_QUERY = '{ events { nodes { slug name visibility } } }';

test.each([
  ['a password hash', { password_hash: 'another-hash' }],
  ['a picture', { picture: 'https://example.com/ann.png' }],
  ['a time zone', { zoneinfo: 'Europe/Oslo' }],
  ['updated_at', { updated_at: 1 }],
  ['the name, set to what it is', { name: 'Ann Active' }],
])('%s written moves nothing', async (_what, columns) => {
  const text = await replayedAnswer();
  const events = await replayedAnswer(EVENTS_QUERY, {});
  const was = await epoch();
  await other.db('users').where({ id: ann().id }).update(columns);
  expect(await epoch()).toBe(was);
  await stillReplayed(text);
  await stillReplayed(events, EVENTS_QUERY, {});
});

test("email verified: the feed's registrant.updated ends the answers that read the registrant's events, no others", async () => {
  const text = await replayedAnswer();
  const events = await replayedAnswer(EVENTS_QUERY, {});
  const was = await epoch();
  await other.db('users').where({ id: ann().id }).update({ email_verified: true });
  expect(await epoch()).toBe(was);
  await stillReplayed(events, EVENTS_QUERY, {});
  const after = await askReplayed(logged, () => gql(t.server, t.fx.tokens.organizerUser, SEED_QUERY, VARS));
  expect(after.replayed).toBe(false);
  expect(after.result.text).toBe(text);
});

describe('a column an answer shows, changed, moves the data epoch and shows in the next answer', () => {
  const pending = (text: string) => text.split('"activationState":"pending"').length - 1;
  test.each([
    ['name', { name: 'Nora Renamed' }, (text: string) => text.includes('Nora Renamed')],
    [
      'email',
      { email: 'nora@example.com', email_normalized: 'nora@example.com' },
      (text: string) => text.includes('nora@example.com'),
    ],
    ['activation state', { activation_state: 'pending' }, (text: string) => pending(text) === 2],
  ])('%s', async (_what, columns, shows) => {
    const nora = t.fx.registrants[3]!;
    const text = await replayedAnswer();
    expect(shows(text)).toBe(false);
    const was = await epoch();
    await other.db('users').where({ id: nora.id }).update(columns);
    expect(await epoch()).not.toBe(was);
    const after = await askReplayed(logged, () => gql(t.server, t.fx.tokens.organizerUser, SEED_QUERY, VARS));
    expect(after.replayed).toBe(false);
    expect(shows(after.result.text)).toBe(true);
  });

  test('uid: the registrant id a node lookup answers', async () => {
    const made = await other.stores.users.create({ email: 'uid-change@example.com', name: 'Uid Change' });
    await other.stores.registrations.create(t.fx.publicEvent.id, made.id);
    const query = 'query($id: ID!) { node(id: $id) { ... on Registrant { name } } }';
    const text = await replayedAnswer(query, { id: made.uid });
    expect(text).toContain('Uid Change');
    const was = await epoch();
    await other
      .db('users')
      .where({ id: made.id })
      .update({ uid: `${made.uid}x` });
    expect(await epoch()).not.toBe(was);
    const after = await gql(t.server, t.fx.tokens.organizerUser, query, { id: made.uid });
    expect(after.body.data).toEqual({ node: null });
  });

  test("the viewer's own name", async () => {
    const query = '{ viewer { user { name } } }';
    await replayedAnswer(query, {});
    await other.db('users').where({ id: t.fx.organizer.id }).update({ name: 'Olive Renamed' });
    const after = await gql(t.server, t.fx.tokens.organizerUser, query);
    expect(after.body.data).toEqual({ viewer: { user: { name: 'Olive Renamed' } } });
  });
});

test('one statement over many users moves the epoch only when it changes what an answer shows', async () => {
  const text = await replayedAnswer();
  const was = await epoch();
  await other.db('users').update({ zoneinfo: 'UTC' });
  await other.db('users').update({ name: other.db.raw('name') });
  expect(await epoch()).toBe(was);
  await stillReplayed(text);

  const two = [t.fx.registrants[1]!.id, t.fx.registrants[2]!.id];
  await other
    .db('users')
    .whereIn('id', two)
    .update({ name: other.db.raw("name || '.'") });
  const moved = BigInt(await epoch()) - BigInt(was);
  // PostgreSQL bumps once a statement; SQLite, with row triggers only, once a row changed.
  expect(moved).toBe(isSqlite(other.db) ? 2n : 1n);
});

test('every field of a registrant or of the viewer user is a column whose change moves the epoch', () => {
  const schema = buildSchema(SCHEMA_SDL);
  const columnOf = (field: string) => (field === 'id' ? 'uid' : field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
  const shown = ['Registrant', 'ViewerUser'].flatMap((type) =>
    Object.keys((schema.getType(type) as GraphQLObjectType).getFields()).map(columnOf),
  );
  expect(shown).toEqual(expect.arrayContaining(['uid', 'name', 'email', 'activation_state']));
  for (const column of shown) expect(migration.ANSWER_USER_COLUMNS).toContain(column);
});

/** Columns of `users` that no answer shows: a column added later must join this list or the watched one. */
const NOT_SHOWN = [
  'email_normalized',
  'email_verified',
  'picture',
  'zoneinfo',
  'password_hash',
  'created_at',
  'updated_at',
];

test('every column of users is either watched or known not to be shown', async () => {
  const columns: string[] = isSqlite(other.db)
    ? (await other.db.raw<{ name: string }[]>('PRAGMA table_info(users)')).map((c) => c.name)
    : (
        await other.db.raw<{ rows: { name: string }[] }>(
          "SELECT column_name AS name FROM information_schema.columns WHERE table_name = 'users' AND table_schema = current_schema()",
        )
      ).rows.map((c) => c.name);
  expect(columns.length).toBeGreaterThan(5);
  expect([...columns].sort()).toEqual([...migration.ANSWER_USER_COLUMNS, ...NOT_SHOWN].sort());
});

test("a user's id changed alone moves the epoch", async () => {
  const made = await other.stores.users.create({ name: 'Id Change' });
  const was = await epoch();
  await other
    .db('users')
    .where({ id: made.id })
    .update({ id: made.id + 100_000 });
  expect(await epoch()).not.toBe(was);
});

test('migrated down, a password change moves the epoch again; up again, it does not', async () => {
  await migration.down(other.db);
  try {
    const was = await epoch();
    await other.stores.users.setPasswordHash(ann().id, 'down-hash');
    expect(await epoch()).not.toBe(was);
  } finally {
    await migration.up(other.db);
  }
  const was = await epoch();
  await other.stores.users.setPasswordHash(ann().id, 'up-hash');
  expect(await epoch()).toBe(was);
  await other.db('users').where({ id: ann().id }).update({ name: 'Ann Again' });
  expect(await epoch()).not.toBe(was);
});
