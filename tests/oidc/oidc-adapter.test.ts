import { useSeededServer } from '../helpers/fixtures.js';

// oidc-provider's models stored through our Knex adapter.
const t = useSeededServer();

test('consume marks a code consumed; findByUid finds a session; expired rows are gone', async () => {
  const { provider } = t.server;
  const client = (await provider.Client.find(t.fx.orgApp.clientId))!;
  const code = new provider.AuthorizationCode({
    accountId: t.fx.organizer.uid,
    client,
    grantId: 'grant-x',
    scope: 'openid',
    redirectUri: 'http://localhost:3000/callback',
    gty: 'authorization_code',
  });
  const value = await code.save();
  await code.consume();
  const found = (await provider.AuthorizationCode.find(value)) as unknown as { consumed?: number };
  expect(found.consumed).toEqual(expect.any(Number));

  const session = { jti: 'session-jti', uid: 'session-uid', accountId: t.fx.organizer.uid, kind: 'Session' };
  await provider.Session.adapter.upsert('session-jti', session, 3600);
  expect((await provider.Session.findByUid('session-uid'))!.accountId).toBe(t.fx.organizer.uid);

  await t.server
    .db('oidc_payloads')
    .where({ model: 'Session' })
    .update({ expires_at: Date.now() - 1 });
  expect(await provider.Session.findByUid('session-uid')).toBeUndefined();
  expect(await t.server.stores.oidc.deleteExpired()).toBeGreaterThanOrEqual(1);
});
