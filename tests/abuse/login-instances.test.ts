import { hashPassword } from '../../src/lib/secrets.js';
import { LOGIN_LIMITS } from '../../src/services/login-throttle.js';
import { createDb, migrate, type Db } from '../../src/stores/database.js';
import { createStores, type Stores } from '../../src/stores/stores.js';
import { useBuiltDist } from '../helpers/build.js';
import { freshDatabase } from '../helpers/harness.js';
import { spawnServer, stopServers, type ServerProcess } from '../helpers/process.js';
import { accountForm, interactionForm, tally, type SignInForm } from './sign-in-forms.js';

// Two real server processes on one database: a burst split between them still gets no more than the limit.
useBuiltDist();
const PASSWORD = 'the right password';
const REDIRECT_URI = 'http://localhost:3000/callback';

let database: { url: string; drop(): Promise<void> };
let db: Db;
let stores: Stores;
let instances: ServerProcess[] = [];
let clientId: string;

beforeAll(async () => {
  database = await freshDatabase();
  db = createDb(database.url);
  await migrate(db);
  stores = createStores(db);
  const env = { NODE_ENV: 'production', BASE_URL: 'http://127.0.0.1', DATABASE_URL: database.url };
  instances = await Promise.all([spawnServer(env), spawnServer(env)]);
  const owner = await stores.users.create({ email: 'owner@example.com', name: 'Owner' });
  clientId = (await stores.apps.create({ ownerId: owner.id, name: 'Split', redirectUris: [REDIRECT_URI] })).app
    .clientId;
}, 30_000);

afterAll(async () => {
  await stopServers(instances);
  await db.destroy();
  await database.drop();
});

/** Sends `count` wrong passwords at once, alternating between the two instances. */
const splitBurst = (form: SignInForm, email: string, count: number) => {
  const [a, b] = instances.map((i) => form.on(i.url));
  return Promise.all(Array.from({ length: count }, (_, i) => (i % 2 ? b! : a!).post(email, `wrong ${i}`)));
};

test.each(['interaction', 'account'] as const)(
  '%s login: 60 wrong passwords split over two instances get at most the limit of 401s',
  async (kind) => {
    const email = `${kind}@example.com`;
    await stores.users.create({ email, name: 'Split Target', passwordHash: await hashPassword(PASSWORD) });
    const url = instances[0]!.url;
    const form =
      kind === 'interaction'
        ? await interactionForm(url, { clientId, redirectUri: REDIRECT_URI })
        : await accountForm(url);
    const burst = await splitBurst(form, email, 60);
    expect(tally(burst)).toEqual({ 401: LOGIN_LIMITS.perAccount.points, 429: 60 - LOGIN_LIMITS.perAccount.points });
    // Refused at both afterwards, the right password included.
    for (const instance of instances) expect((await form.on(instance.url).post(email, PASSWORD)).status).toBe(429);
  },
  60_000,
);
