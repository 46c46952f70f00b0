import { mintAccessToken } from '../../src/oidc/mint-token.js';
import { isSqlite } from '../../src/stores/dialect.js';
import { cli } from '../helpers/cli.js';
import { seedFixtures, useSeededServer } from '../helpers/fixtures.js';
import { startServer } from '../helpers/harness.js';
import { gql, SEED_QUERY } from '../helpers/graphql.js';
import { capturedLog } from '../helpers/log-lines.js';
import { ndjson } from '../helpers/ndjson.js';
import { until, within } from '../helpers/wait.js';
import { askReplayed } from '../helpers/replays.js';
import { sqlDuring } from '../helpers/sql.js';

// Answers are replayed while the data epoch stands still: these check that a replay is the answer Apollo
// would give, that it costs what it did, and that no write, viewer or grant ever gets another's answer.
const { logger, lines: logged } = capturedLog();
const t = useSeededServer({ RATE_LIMIT_POINTS: '100000' }, { logger });

const VARS = { slug: 'public-meetup' };
const names = (res: Awaited<ReturnType<typeof gql>>) =>
  (
    res.body.data as {
      event: { registrations: { nodes: { registrant: { name: string; email: string | null } }[] } };
    }
  ).event.registrations.nodes.map((n) => n.registrant);

/** The statements the server runs while answering, without the epoch and budget bookkeeping. */
async function dataStatements(fn: () => Promise<unknown>): Promise<string[]> {
  const { sql } = await sqlDuring(t.server.db, fn);
  return sql.filter((s) => !/auth_epoch|rate_limits|^begin|^commit|^BEGIN|^COMMIT|^SAVEPOINT|^RELEASE/i.test(s));
}

test('a repeated query is replayed byte for byte, with its headers, without reading the data again', async () => {
  const token = t.fx.tokens.organizerUser;
  const first = await gql(t.server, token, SEED_QUERY, VARS);
  let second!: Awaited<ReturnType<typeof gql>>;
  const statements = await dataStatements(async () => {
    const asked = await askReplayed(logged, () => gql(t.server, token, SEED_QUERY, VARS));
    expect(asked.replayed).toBe(true);
    second = asked.result;
  });
  expect(statements).toEqual([]);
  expect(second.status).toBe(200);
  expect(second.text).toBe(first.text);
  for (const name of ['content-type', 'etag', 'cache-control', 'access-control-allow-origin']) {
    expect(second.headers.get(name)).toBe(first.headers.get(name));
  }
  // It still spends its cost.
  expect(Number(second.headers.get('x-ratelimit-used'))).toBe(Number(first.headers.get('x-ratelimit-used')) + 1);
  // And answers a conditional request with 304.
  const conditional = await fetch(`${t.server.url}/graphql`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json',
      'If-None-Match': first.headers.get('etag')!,
    },
    body: JSON.stringify({ query: SEED_QUERY, variables: VARS }),
  });
  expect(conditional.status).toBe(304);
});

test('a replay spends the cost of the answer it replays, not one point', async () => {
  // A token of its own: its budget has seen nothing else.
  const made = await t.server.stores.apps.create({
    ownerId: t.fx.organizer.id,
    name: 'Costly',
    redirectUris: ['https://c.example/cb'],
  });
  // A page of 1000 registrations may return 1000 nodes: cost 10 (nodes / 100).
  const costly = 'query($slug: String!) { event(slug: $slug) { registrations(first: 1000) { nodes { id } } } }';
  const first = await gql(t.server, made.appToken, costly, VARS);
  expect(first.status).toBe(200);
  const limit = Number(first.headers.get('x-ratelimit-limit'));
  expect(first.headers.get('x-ratelimit-used')).toBe('10');
  expect(first.headers.get('x-ratelimit-remaining')).toBe(String(limit - 10));

  const asked = await askReplayed(logged, () => gql(t.server, made.appToken, costly, VARS));
  expect(asked.replayed).toBe(true);
  const replayed = asked.result;
  expect(replayed.text).toBe(first.text);
  expect(replayed.headers.get('x-ratelimit-used')).toBe('20');
  expect(replayed.headers.get('x-ratelimit-remaining')).toBe(String(limit - 20));
  // And the budget says so too.
  const budget = await gql(t.server, made.appToken, '{ rateLimit { used } }');
  expect(budget.body.data).toEqual({ rateLimit: { used: 21 } });
});

test('another viewer, or the same user with fewer grants, never gets the answer cached for the first', async () => {
  const cached = await gql(t.server, t.fx.tokens.organizerUser, SEED_QUERY, VARS);
  expect(cached.text).toContain('ann@example.com');
  // The other user organizes nothing: no registrations, whatever was cached for the organizer.
  const other = await gql(t.server, t.fx.tokens.otherUser, SEED_QUERY, VARS);
  expect(other.text).not.toContain('ann@example.com');
  // The organizer's app token acts for the same organizer, but app tokens never see emails.
  const organizerApp = await gql(t.server, t.fx.tokens.organizerApp, SEED_QUERY, VARS);
  expect(organizerApp.status).toBe(200);
  expect(organizerApp.text).toContain('Ann Active');
  expect(organizerApp.text).not.toContain('ann@example.com');
  const otherApp = await gql(t.server, t.fx.tokens.otherApp, SEED_QUERY, VARS);
  expect(otherApp.text).not.toContain('ann@example.com');

  // The same user at the same app with fewer scopes: its own answer, not the wider token's.
  const scopes = '{ viewer { scopes } }';
  const wide = await gql(t.server, t.fx.tokens.organizerUser, scopes);
  expect(wide.body.data).toEqual({ viewer: { scopes: ['openid', 'email', 'profile'] } });
  const narrow = await mintAccessToken(t.server.provider, {
    accountId: t.fx.organizer.uid,
    clientId: t.fx.orgApp.clientId,
    scope: 'openid',
  });
  expect((await gql(t.server, narrow.access_token, scopes)).body.data).toEqual({ viewer: { scopes: ['openid'] } });
});

test('a write by the CLI shows in the next answer', async () => {
  const token = t.fx.tokens.organizerUser;
  const url = t.server.config.databaseUrl;
  const before = await gql(t.server, token, SEED_QUERY, VARS);
  expect(names(before).map((r) => r.name)).toContain('Ann Active');

  expect((await cli(url, ['user', 'update', '--user', 'ann@example.com', '--name', 'Ann Renamed'])).code).toBe(0);
  expect(names(await gql(t.server, token, SEED_QUERY, VARS)).map((r) => r.name)).toContain('Ann Renamed');

  expect((await cli(url, ['user', 'create', '--email', 'late@example.com', '--name', 'Lena Late'])).code).toBe(0);
  expect(
    (await cli(url, ['registration', 'create', '--event', 'public-meetup', '--user', 'late@example.com'])).code,
  ).toBe(0);
  expect(names(await gql(t.server, token, SEED_QUERY, VARS)).map((r) => r.name)).toContain('Lena Late');

  const file = ndjson(
    { type: 'user', email: 'imp@example.com', name: 'Ida Imported' },
    { type: 'registration', event: 'public-meetup', user: 'imp@example.com' },
  );
  const imported = await cli(url, ['import', '-'], file);
  expect(imported.stderr).toBe('');
  expect(imported.code).toBe(0);
  expect(names(await gql(t.server, token, SEED_QUERY, VARS)).map((r) => r.name)).toContain('Ida Imported');

  expect((await cli(url, ['event', 'update', '--event', 'public-meetup', '--private'])).code).toBe(0);
  const hidden = await gql(t.server, t.fx.tokens.otherUser, '{ event(slug: "public-meetup") { name } }');
  expect(hidden.body.data).toEqual({ event: null });
  expect((await cli(url, ['event', 'update', '--event', 'public-meetup', '--public'])).code).toBe(0);
  const shown = await gql(t.server, t.fx.tokens.otherUser, '{ event(slug: "public-meetup") { name } }');
  expect(shown.body.data).toEqual({ event: { name: 'Public Meetup' } });
});

test('a token that dies after its answer was cached gets a 401, not the answer', async () => {
  const made = await t.server.stores.apps.create({
    ownerId: t.fx.organizer.id,
    name: 'Short-lived',
    redirectUris: ['https://s.example/cb'],
  });
  const query = '{ event(slug: "public-meetup") { name } }';
  expect((await gql(t.server, made.appToken, query)).status).toBe(200);
  await t.server.stores.apps.rotateAppToken(made.app.id);
  expect((await gql(t.server, made.appToken, query)).status).toBe(401);
});

test('answers with errors, and the moving rateLimit field, are never replayed', async () => {
  const token = t.fx.tokens.organizerApp;
  const used = async () => {
    const res = await gql(t.server, token, '{ rateLimit { used } viewer { tokenKind } }');
    return (res.body.data as { rateLimit: { used: number } }).rateLimit.used;
  };
  const first = await used();
  expect(await used()).toBe(first + 1);

  // Registrations are for organizers: the other user's answer carries an error, and is computed each time.
  const forbidden = await gql(t.server, t.fx.tokens.otherUser, SEED_QUERY, VARS);
  expect(forbidden.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  const again = await askReplayed(logged, () => gql(t.server, t.fx.tokens.otherUser, SEED_QUERY, VARS));
  expect(again.result.text).toBe(forbidden.text);
  expect(again.replayed).toBe(false);
});

test('the same document with other variables, operation or Accept header is a different answer', async () => {
  const token = t.fx.tokens.organizerUser;
  const page = 'query($slug: String!, $n: Int) { event(slug: $slug) { registrations(first: $n) { nodes { id } } } }';
  const two = await gql(t.server, token, page, { slug: 'public-meetup', n: 2 });
  const three = await gql(t.server, token, page, { slug: 'public-meetup', n: 3 });
  expect((two.body.data as { event: { registrations: { nodes: unknown[] } } }).event.registrations.nodes).toHaveLength(
    2,
  );
  expect(
    (three.body.data as { event: { registrations: { nodes: unknown[] } } }).event.registrations.nodes,
  ).toHaveLength(3);
  const modern = await gql(t.server, token, page, { slug: 'public-meetup', n: 2 }, 'application/graphql-response+json');
  expect(modern.headers.get('content-type')).toContain('application/graphql-response+json');
  const legacy = await gql(t.server, token, page, { slug: 'public-meetup', n: 2 });
  expect(legacy.headers.get('content-type')).toContain('application/json');
});

test('RESPONSE_CACHE_MB=0 turns replays off: every answer is computed', async () => {
  const server = await startServer({ RESPONSE_CACHE_MB: '0' }, { logger });
  try {
    const fx = await seedFixtures(server);
    const ask = () => gql(server, fx.tokens.organizerUser, SEED_QUERY, VARS);
    const first = await ask();
    const again = await askReplayed(logged, ask);
    expect(again.result.text).toBe(first.text);
    expect(again.replayed).toBe(false);
  } finally {
    await server.close();
  }
});

test('a request while a write transaction is open answers once it can, and the write shows after commit', async () => {
  const token = t.fx.tokens.organizerUser;
  await gql(t.server, token, SEED_QUERY, VARS);
  const trx = await t.server.db.transaction();
  let answered: Awaited<ReturnType<typeof gql>>;
  try {
    await trx('users').where({ email: 'pat@example.com' }).update({ name: 'Pat In Transaction' });
    let settled = false;
    const pending = gql(t.server, token, SEED_QUERY, VARS).finally(() => (settled = true));
    if (isSqlite(t.server.db)) {
      // SQLite has one connection, the transaction's: the request waits in the pool until the commit.
      const pool = (t.server.db.client as { pool: { numPendingAcquires(): number } }).pool;
      await until(() => pool.numPendingAcquires() > 0, 'the request waiting for the connection');
      expect(settled).toBe(false);
    } else {
      // PostgreSQL reads what is committed: the answer comes while the transaction is open, without its write.
      const during = await within(10_000, 'the answer during the transaction', pending);
      expect(names(during).map((r) => r.name)).toContain('Pat Pending');
    }
    await trx.commit();
    answered = await pending;
  } catch (err) {
    await trx.rollback();
    throw err;
  }
  expect(answered.status).toBe(200);
  expect(names(await gql(t.server, token, SEED_QUERY, VARS)).map((r) => r.name)).toContain('Pat In Transaction');
});

test('a flood of distinct requests cannot grow the replay cache past RESPONSE_CACHE_MB: the oldest are dropped', async () => {
  const server = await startServer({ RESPONSE_CACHE_MB: '1' }, { logger });
  try {
    const fx = await seedFixtures(server);
    // Each request differs only in a comment of 60 kB: about 120 kB of key each, so 1 MB holds fewer than 10.
    const padded = (i: number) => `# ${String(i).padStart(4, '0')}${'x'.repeat(60_000)}\n${SEED_QUERY}`;
    const ask = (i: number) => gql(server, fx.tokens.organizerUser, padded(i), VARS);
    expect((await askReplayed(logged, () => ask(0))).replayed).toBe(false);
    expect((await askReplayed(logged, () => ask(0))).replayed).toBe(true);
    for (let i = 1; i <= 20; i += 1) expect((await ask(i)).status).toBe(200);
    const again = await askReplayed(logged, () => ask(0));
    expect(again.result.status).toBe(200);
    expect(again.replayed).toBe(false); // dropped, so computed again
  } finally {
    await server.close();
  }
});
