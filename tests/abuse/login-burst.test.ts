import { hashPassword } from '../../src/lib/secrets.js';
import { LOGIN_LIMITS } from '../../src/services/login-throttle.js';
import { startServer, type TestServer } from '../helpers/harness.js';
import { accountForm, interactionForm, tally, type SignInForm } from './sign-in-forms.js';

// Parallel sign-ins must not outrun the throttle: each attempt is counted before its password is checked.
const PASSWORD = 'the right password';
const REDIRECT_URI = 'http://localhost:3000/callback';

async function makeUser(server: TestServer, email: string) {
  return server.stores.users.create({ email, name: 'Burst Target', passwordHash: await hashPassword(PASSWORD) });
}

/** One server per form: each burst spends its own address's budget too. */
describe.each([
  ['interaction login', 'interaction'],
  ['account login', 'account'],
] as const)('%s', (_name, kind) => {
  let server: TestServer;
  let form: SignInForm;

  beforeAll(async () => {
    server = await startServer();
    const owner = await makeUser(server, 'owner@example.com');
    const made = await server.stores.apps.create({ ownerId: owner.id, name: 'Burst', redirectUris: [REDIRECT_URI] });
    form =
      kind === 'interaction'
        ? await interactionForm(server.url, { clientId: made.app.clientId, redirectUri: REDIRECT_URI })
        : await accountForm(server.url);
  });
  afterAll(() => server.close());

  test('60 parallel wrong passwords get at most the limit of 401s, the rest 429; then the right one is refused', async () => {
    await makeUser(server, 'victim@example.com');
    const burst = await Promise.all(
      Array.from({ length: 60 }, (_, i) => form.post('victim@example.com', `wrong ${i}`)),
    );
    expect(tally(burst)).toEqual({ 401: LOGIN_LIMITS.perAccount.points, 429: 60 - LOGIN_LIMITS.perAccount.points });
    for (const refused of burst.filter((r) => r.status === 429)) {
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // The right password at the end of the burst does not launder it: still refused, nothing signed in.
    const right = await form.post('Victim@Example.com', PASSWORD);
    expect(right.status).toBe(429);
    expect(right.headers.get('location')).toBeNull();
    expect(right.headers.getSetCookie().some((c) => /roster\.account|_session/.test(c))).toBe(false);
    expect(await right.text()).toContain('Too many failed sign-in attempts');
  }, 60_000);

  test('an unknown address is counted like a known one, and another account from the same address still signs in', async () => {
    const burst = await Promise.all(Array.from({ length: 30 }, () => form.post('nobody@example.com', 'whatever')));
    expect(tally(burst)).toEqual({ 401: LOGIN_LIMITS.perAccount.points, 429: 30 - LOGIN_LIMITS.perAccount.points });

    await makeUser(server, 'bystander@example.com');
    const ok = await form.post('bystander@example.com', PASSWORD);
    expect(ok.status).toBe(303);
  }, 60_000);
});

test('a success gives back only what came before it: failures after it still count', async () => {
  const server = await startServer();
  try {
    await makeUser(server, 'typo@example.com');
    const form = await accountForm(server.url);
    for (let i = 0; i < 3; i += 1) expect((await form.post('typo@example.com', 'typo')).status).toBe(401);
    // The user gets in: the three typos are forgiven, and the full allowance is there again.
    expect((await form.post('typo@example.com', PASSWORD)).status).toBe(303);
    const after = await Promise.all(
      Array.from({ length: LOGIN_LIMITS.perAccount.points + 5 }, () => form.post('typo@example.com', 'typo')),
    );
    expect(tally(after)).toEqual({ 401: LOGIN_LIMITS.perAccount.points, 429: 5 });

    // An inactive user's right password is a wrong password: same answer, same count.
    await server.stores.users.create({
      email: 'pending@example.com',
      name: 'Pending',
      passwordHash: await hashPassword(PASSWORD),
      activationState: 'pending',
    });
    const answers = await Promise.all(
      Array.from({ length: LOGIN_LIMITS.perAccount.points + 2 }, () => form.post('pending@example.com', PASSWORD)),
    );
    expect(tally(answers)).toEqual({ 401: LOGIN_LIMITS.perAccount.points, 429: 2 });
    expect(await answers.find((r) => r.status === 401)!.text()).toContain('The email or password is incorrect.');
  } finally {
    await server.close();
  }
}, 60_000);

test('a burst over many accounts from one address gets at most the address limit of 401s', async () => {
  // 120 password checks at once on a small machine: a generous timeout, so only the throttle answers early.
  const server = await startServer({ REQUEST_TIMEOUT_MS: '120000' });
  try {
    const form = await accountForm(server.url);
    const limit = LOGIN_LIMITS.perIp.points;
    const burst = await Promise.all(
      Array.from({ length: limit + 20 }, (_, i) => form.post(`spray${i}@example.com`, 'guess')),
    );
    expect(tally(burst)).toEqual({ 401: limit, 429: 20 });
    // A right password from that address is refused too until the window ends.
    await makeUser(server, 'late@example.com');
    const right = await form.post('late@example.com', PASSWORD);
    expect(right.status).toBe(429);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(60);
  } finally {
    await server.close();
  }
}, 90_000);
