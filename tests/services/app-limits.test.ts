import type { Server } from 'node:http';
import { createRoster } from '../../src/roster.js';
import { loadConfig } from '../../src/config.js';
import { createHttpServer } from '../../src/http/http-server.js';
import { hashPassword } from '../../src/lib/secrets.js';
import { Conflict } from '../../src/services/errors.js';
import { createServices } from '../../src/services/services.js';
import { createDb, type Db } from '../../src/stores/database.js';
import { createStores } from '../../src/stores/stores.js';
import type { UserRow } from '../../src/stores/types.js';
import { accountSession, type AccountSession } from '../helpers/account-session.js';
import { appCreateArgs, cli } from '../helpers/cli.js';
import { startServer, type TestServer } from '../helpers/harness.js';

// Unlimited app registration: apps per owner are capped (MAX_APPS_PER_USER, the account pages and the CLI
// alike, racing requests included), and a user's app registrations and edits at the account pages are
// throttled, counted in the database so every instance shares the count.

const PASSWORD = 'a long and careful passphrase';
const CAP = 3;
const CAP_MESSAGE = `an account may have at most ${CAP} apps; delete one to register another`;
const alertOf = (text: string) => /<p class="alert" role="alert">([^<]*)<\/p>/.exec(text)?.[1];

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ MAX_APPS_PER_USER: String(CAP) });
});
afterAll(() => server?.close());

let n = 0;
async function newUser(state: 'active' | 'deactivated' = 'active'): Promise<UserRow> {
  n += 1;
  return server.stores.users.create({
    email: `limits${n}@example.com`,
    name: `Limits ${n}`,
    passwordHash: await hashPassword(PASSWORD),
    activationState: state,
  });
}
const signIn = (user: UserRow, url = server.url) => accountSession(url, user.email!, PASSWORD);
const roster = (args: string[], env: NodeJS.ProcessEnv = { MAX_APPS_PER_USER: String(CAP) }) =>
  cli(server.config.databaseUrl, args, '', env);
const createArgs = (owner: UserRow, name: string) => appCreateArgs(owner.uid, name, 'https://app.example/cb', '--json');
const register = (session: AccountSession, name: string) =>
  session.post('/account/apps', { name, redirect_uris: 'https://app.example/cb', type: 'confidential' });
const appsOf = async (user: UserRow) => (await server.stores.apps.listByOwner(user.id)).length;

describe('MAX_APPS_PER_USER', () => {
  test('defaults to 25 apps an owner, at the CLI', async () => {
    const owner = await newUser();
    for (let i = 0; i < 24; i += 1) {
      await server.stores.apps.create({ ownerId: owner.id, name: `Old ${i}`, redirectUris: ['https://a.example/cb'] });
    }
    expect((await roster(createArgs(owner, 'Twenty-fifth'), {})).code).toBe(0);
    const refused = await roster(createArgs(owner, 'Twenty-sixth'), {});
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe('roster: an account may have at most 25 apps; delete one to register another\n');
    expect(await appsOf(owner)).toBe(25);
  });

  test('a bad value stops the CLI with one line', async () => {
    for (const bad of ['0', 'many', '-1', '2.5']) {
      const res = await roster(['app', 'list'], { MAX_APPS_PER_USER: bad });
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/^roster: MAX_APPS_PER_USER must be a whole number from 1 to \d+, got "/);
    }
  });

  test('the CLI refuses the owner’s app past the cap, in one line, and takes one again after a delete', async () => {
    const owner = await newUser();
    const made: string[] = [];
    for (let i = 0; i < CAP; i += 1) {
      const res = await roster(createArgs(owner, `App ${i}`));
      expect(res.code).toBe(0);
      made.push(res.json.client_id as string);
    }
    const refused = await roster(createArgs(owner, 'One too many'));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`roster: ${CAP_MESSAGE}\n`);
    expect(await appsOf(owner)).toBe(CAP);
    expect((await roster(['app', 'delete', '--client', made[0]!])).code).toBe(0);
    expect((await roster(createArgs(owner, 'Replacement'))).code).toBe(0);
    expect(await appsOf(owner)).toBe(CAP);
  });

  test('a deactivated owner’s apps count too', async () => {
    const owner = await newUser('deactivated');
    for (let i = 0; i < CAP; i += 1) expect((await roster(createArgs(owner, `Suspended ${i}`))).code).toBe(0);
    expect((await roster(createArgs(owner, 'Past the cap'))).stderr).toBe(`roster: ${CAP_MESSAGE}\n`);
    expect(await appsOf(owner)).toBe(CAP);
  });

  test('simultaneous registrations never pass the cap together', async () => {
    // Its own pool: on PostgreSQL the creations run on separate connections at once. (Two SQLite connections
    // cannot race inside one process: one's busy wait would block the other's commit.)
    const db = createDb(server.config.databaseUrl, { poolMax: 10 });
    try {
      const services = createServices(createStores(db), { ...server.config, maxAppsPerUser: CAP });
      const owner = await newUser();
      await server.stores.apps.create({ ownerId: owner.id, name: 'First', redirectUris: ['https://a.example/cb'] });
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) =>
          services.apps.create({ ownerId: owner.id, name: `Racer ${i}`, redirectUris: ['https://a.example/cb'] }),
        ),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(CAP - 1);
      for (const r of results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')) {
        expect(r.reason).toBeInstanceOf(Conflict);
        expect((r.reason as Error).message).toBe(CAP_MESSAGE);
      }
      expect(await appsOf(owner)).toBe(CAP);
    } finally {
      await db.destroy();
    }
  });

  test('the account page refuses past the cap with the form kept, and simultaneous posts do not pass it', async () => {
    const owner = await newUser();
    const session = await signIn(owner);
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => register(session, `Page racer ${i}`)));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(CAP);
    const refused = answers.filter((a) => a.status !== 201);
    expect(refused.map((a) => a.status)).toEqual([409, 409, 409]);
    expect(alertOf(refused[0]!.text)).toBe(`An account may have at most ${CAP} apps; delete one to register another.`);
    expect(refused[0]!.text).toMatch(/name="name"[^>]*value="Page racer \d"/);
    expect(await appsOf(owner)).toBe(CAP);
  });

  test('a deactivated user’s open session registers nothing', async () => {
    const owner = await newUser();
    const session = await signIn(owner);
    expect((await roster(['user', 'set-state', '--user', owner.uid, '--state', 'deactivated'])).code).toBe(0);
    const answer = await register(session, 'Ghost app');
    expect(answer.status).toBe(401);
    expect(await appsOf(owner)).toBe(0);
  });
});

describe('the account pages throttle app registrations and edits', () => {
  /** A second instance on the same database: the throttle's count must be theirs too. */
  let second: { url: string; close(): Promise<void> };
  beforeAll(async () => {
    const http: Server = createHttpServer();
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(http.address() as { port: number }).port}`;
    const config = loadConfig(
      { NODE_ENV: 'test', BASE_URL: url, DATABASE_URL: server.config.databaseUrl, MAX_APPS_PER_USER: String(CAP) },
      false,
    );
    const db: Db = createDb(config.databaseUrl);
    const roster = await createRoster({ config, db });
    http.on('request', roster.express);
    second = {
      url,
      async close() {
        http.closeAllConnections();
        await new Promise<void>((resolve) => http.close(() => resolve()));
        await roster.close();
        await db.destroy();
      },
    };
  });
  afterAll(() => second?.close());

  test('20 an hour per user, across instances: then 429 with Retry-After and one line, nothing changed', async () => {
    const owner = await newUser();
    const here = await signIn(owner);
    const there = await signIn(owner, second.url);
    expect((await register(here, 'Throttled')).status).toBe(201);
    const [app] = await server.stores.apps.listByOwner(owner.id);
    const edit = (session: AccountSession, i: number) =>
      session.post(`/account/apps/${app!.id}/edit`, { redirect_uris: `https://app.example/cb${i}` });
    // 1 registration + 19 edits, alternating between the instances.
    for (let i = 1; i < 20; i += 1) expect((await edit(i % 2 ? there : here, i)).status).toBe(303);
    const stored = (await server.stores.apps.findByClientId(app!.clientId))!.redirectUris;

    const refused = [
      await edit(here, 99),
      await edit(there, 99),
      await register(here, 'Too fast'),
      await here.post(`/account/apps/${app!.id}/token`, { confirm: 'yes' }),
    ];
    for (const answer of refused) {
      expect(answer.status).toBe(429);
      expect(alertOf(answer.text)).toMatch(/^Too many app changes from your account: try again in \d+ minutes?\.$/);
    }
    const raw = await fetch(`${server.url}/account/apps`, {
      method: 'POST',
      headers: { Cookie: here.cookie(), 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: here.csrf, name: 'Header check', redirect_uris: 'https://a.example/cb' }),
      redirect: 'manual',
    });
    expect(raw.status).toBe(429);
    const retryAfter = Number(raw.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);

    expect((await server.stores.apps.findByClientId(app!.clientId))!.redirectUris).toEqual(stored);
    expect(await appsOf(owner)).toBe(1);

    // Another user is not affected.
    const other = await signIn(await newUser());
    expect((await register(other, 'Unaffected')).status).toBe(201);
  });

  test('refused input costs nothing: a user who mistypes is not locked out', async () => {
    const owner = await newUser();
    const session = await signIn(owner);
    for (let i = 0; i < 25; i += 1) {
      const answer = await session.post('/account/apps', { name: `Typo ${i}`, redirect_uris: 'not a url' });
      expect(answer.status).toBe(400);
    }
    expect((await register(session, 'Finally right')).status).toBe(201);
  });
});
