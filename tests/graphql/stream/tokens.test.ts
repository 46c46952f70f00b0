import { mintAccessToken } from '../../../src/oidc/mint-token.js';
import { useSeededServer } from '../../helpers/fixtures.js';
import { until, within } from '../../helpers/wait.js';
import { closeStreams, expectEndedWith, openStream, subscribeWithClient } from '../../helpers/streams.js';

// A stream lives no longer than its token: revoked in any way (the token, its grant, its user or app) it
// ends within two seconds, and expired at its expiry, each with an UNAUTHENTICATED result then `complete`.
// Other streams carry on.
const t = useSeededServer();
afterEach(closeStreams);

/** How long an ended token's stream may stay open: the auth epoch is polled every second at most. */
const ENDS_MS = 2000;

let n = 0;
/** A fresh user with a user token for the organizer's app, and a fresh app of the organizer with its token. */
async function fresh(expiresIn?: number) {
  n += 1;
  const user = await t.server.stores.users.create({ email: `token${n}@example.com`, name: `Token ${n}` });
  const { app, appToken } = await t.server.stores.apps.create({
    ownerId: t.fx.organizer.id,
    name: `Token app ${n}`,
    redirectUris: ['https://example.com/cb'],
  });
  const minted = await mintAccessToken(t.server.provider, {
    accountId: user.uid,
    clientId: t.fx.orgApp.clientId,
    scope: 'openid',
    expiresIn,
  });
  return { user, app, appToken, token: minted.access_token };
}
type Fresh = Awaited<ReturnType<typeof fresh>>;

test.each<[string, (f: Fresh) => Promise<unknown>, 'token' | 'appToken']>([
  [
    'the access token revoked',
    async ({ token }) => (await t.server.provider.AccessToken.find(token))!.destroy(),
    'token',
  ],
  [
    'its grant revoked',
    async ({ token }) => {
      const { grantId } = (await t.server.provider.AccessToken.find(token))!;
      await (await t.server.provider.Grant.find(grantId))!.destroy();
    },
    'token',
  ],
  ['its user deactivated', ({ user }) => t.server.services.users.setState(user.uid, 'deactivated'), 'token'],
  ['the app deleted', ({ app }) => t.server.stores.apps.delete(app.id), 'appToken'],
  ['the app token rotated', ({ app }) => t.server.stores.apps.rotateAppToken(app.id), 'appToken'],
])('%s: the stream ends with UNAUTHENTICATED, then complete; others carry on', async (_name, end, which) => {
  const f = await fresh();
  const bystander = await openStream(t.server, t.fx.tokens.organizerUser);
  const stream = await openStream(t.server, f[which]);
  expect(stream.status).toBe(200);
  await end(f);
  const ended = performance.now();
  const { errors } = await expectEndedWith(stream, 'UNAUTHENTICATED', ENDS_MS + 1000);
  expect(performance.now() - ended).toBeLessThan(ENDS_MS);
  expect(errors![0]!.message).toMatch(/revoked/);
  expect(stream.events).toHaveLength(2);
  // The token is refused from now on, before any stream opens.
  expect((await openStream(t.server, f[which])).status).toBe(401);
  // Another token's stream is still open and still served.
  await t.server.stores.registrations.create(t.fx.publicEvent.id, f.user.id);
  await bystander.next(1, 2000);
  expect(bystander.done).toBe(false);
});

test('a token that expires ends its stream at its expiry with UNAUTHENTICATED, then complete', async () => {
  // Minted late in a second: its `exp` (whole seconds) falls well before the stored token's own end.
  await until(() => Date.now() % 1000 > 800, 'late in a second', 1500);
  const f = await fresh(2);
  const expiresAt = (await t.server.provider.AccessToken.find(f.token))!.exp! * 1000;
  const stream = await openStream(t.server, f.token);
  expect(stream.status).toBe(200);
  const { errors } = await expectEndedWith(stream, 'UNAUTHENTICATED', 4000);
  const late = Date.now() - expiresAt;
  expect(late).toBeGreaterThanOrEqual(-5);
  expect(late).toBeLessThan(1000);
  expect(errors![0]!.message).toMatch(/expired/);
  // Past its expiry the token opens nothing: a 401 before any stream.
  const again = await openStream(t.server, f.token);
  expect(again.status).toBe(401);
  expect(again.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
});

test('the graphql-sse client gets the UNAUTHENTICATED result, then completes without retrying', async () => {
  const f = await fresh();
  await until(() => t.server.services.live.open === 0, 'the streams of earlier tests closed', 5000);
  const run = subscribeWithClient(t.server, f.token, 'subscription { changes { cursor } }');
  // The client gives no sign of its connection: wait until the server follows the log for it.
  await until(() => t.server.services.live.open === 1, 'the client connected', 5000);
  await t.server.services.users.setState(f.user.uid, 'deactivated');
  await expect(within(ENDS_MS + 1000, 'the client completed', run.ended)).resolves.toBe('complete');
  expect(run.results).toHaveLength(1);
  expect(run.results[0]!.data ?? null).toBeNull();
  expect(run.results[0]!.errors![0]!.extensions).toEqual({ code: 'UNAUTHENTICATED' });
});
