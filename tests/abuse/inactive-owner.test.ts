import type { ActivationState } from '../../src/stores/types.js';
import { mintAccessToken } from '../../src/oidc/mint-token.js';
import { cli } from '../helpers/cli.js';
import { gql } from '../helpers/graphql.js';
import { startServer, type TestServer } from '../helpers/harness.js';

// An app is suspended while its owner may not act: its app token, the user tokens issued to it and the
// app itself as an OAuth client all stop at once, and all come back when the owner is reactivated.
let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const PRIVATE = '{ event(slug: $slug) { name registrations { nodes { registrant { name email } } } } }';
const REDIRECT = 'https://owner.example/cb';

let n = 0;
/** An organizer of a private event, their app, and tokens of every kind that involve them. */
async function organizerWorld() {
  n += 1;
  const { users, events, registrations, apps } = server.stores;
  const owner = await users.create({ email: `owner${n}@example.com`, name: `Owner ${n}` });
  const guest = await users.create({ email: `guest${n}@example.com`, name: `Guest ${n}` });
  const bystander = await users.create({ email: `bystander${n}@example.com`, name: `Bystander ${n}` });
  const event = await events.create({
    slug: `retreat-${n}`,
    name: `Retreat ${n}`,
    visibility: 'private',
    organizerIds: [owner.id],
  });
  await registrations.create(event.id, guest.id);
  const made = await apps.create({ ownerId: owner.id, name: `Owner app ${n}`, redirectUris: [REDIRECT] });
  const elsewhere = await apps.create({ ownerId: bystander.id, name: `Other app ${n}`, redirectUris: [REDIRECT] });
  const mint = async (accountId: string, clientId: string) =>
    (await mintAccessToken(server.provider, { accountId, clientId, scope: 'openid email' })).access_token;
  return {
    owner,
    slug: event.slug,
    guestEmail: guest.email,
    app: made,
    tokens: {
      /** The app's own token: acts for the owner (no registrant emails). */
      appToken: made.appToken,
      /** The owner signed in to their own app. */
      ownerAtOwnApp: await mint(owner.uid, made.app.clientId),
      /** Another, active user signed in to the owner's app. */
      bystanderAtOwnApp: await mint(bystander.uid, made.app.clientId),
      /** The owner signed in to someone else's app. */
      ownerElsewhere: await mint(owner.uid, elsewhere.app.clientId),
    },
  };
}

type World = Awaited<ReturnType<typeof organizerWorld>>;

/** As the operator would: the CLI, a separate writer on the same database. */
async function setState(uid: string, state: ActivationState) {
  const res = await cli(server.config.databaseUrl, ['user', 'set-state', '--user', uid, '--state', state, '--json']);
  expect(res.json).toMatchObject({ uid, activation_state: state });
}

/** Twice, so the second answer may come from the per-instance cache. */
async function expectWorking(world: World) {
  for (let i = 0; i < 2; i += 1) {
    const app = await gql(server, world.tokens.appToken, `query($slug: String!) ${PRIVATE}`, { slug: world.slug });
    expect(app.status).toBe(200);
    expect(app.body.data!.event).toMatchObject({ registrations: { nodes: [{ registrant: { email: null } }] } });
    const user = await gql(server, world.tokens.ownerAtOwnApp, `query($slug: String!) ${PRIVATE}`, {
      slug: world.slug,
    });
    expect(user.body.data!.event).toMatchObject({
      registrations: { nodes: [{ registrant: { email: world.guestEmail } }] },
    });
    for (const token of [world.tokens.bystanderAtOwnApp, world.tokens.ownerElsewhere]) {
      expect((await gql(server, token, '{ viewer { tokenKind } }')).status).toBe(200);
    }
  }
}

async function expectRefused(token: string) {
  const res = await gql(server, token, '{ viewer { tokenKind } }');
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  expect(res.body.data).toBeUndefined();
  const info = await fetch(`${server.url}/openid/userinfo`, { headers: { Authorization: `Bearer ${token}` } });
  expect(info.status).toBe(401);
}

describe.each<ActivationState>(['deactivated', 'pending'])('an organizer set %s', (state) => {
  test('every token of theirs and of their app stops at once, and works again on reactivation', async () => {
    const world = await organizerWorld();
    await expectWorking(world);

    await setState(world.owner.uid, state);
    for (const token of Object.values(world.tokens)) await expectRefused(token);
    // Same answer as an unknown token: nothing tells a caller why.
    const unknown = await gql(server, 'rst_app_unknown', '{ viewer { tokenKind } }');
    const suspended = await gql(server, world.tokens.appToken, '{ viewer { tokenKind } }');
    expect(suspended.text).toBe(unknown.text);

    await setState(world.owner.uid, 'active');
    await expectWorking(world);
  });

  test('their app is no client of the provider meanwhile: no sign-in, no refresh, no revocation', async () => {
    const world = await organizerWorld();
    const { clientId } = world.app.app;
    const basic = `Basic ${Buffer.from(`${clientId}:${world.app.clientSecret}`).toString('base64')}`;
    const grant = new server.provider.Grant({ accountId: world.owner.uid, clientId });
    grant.addOIDCScope('openid');
    const client = await server.provider.Client.find(clientId);
    const refreshToken = await new server.provider.RefreshToken({
      accountId: world.owner.uid,
      client: client!,
      grantId: await grant.save(),
      scope: 'openid',
      gty: 'authorization_code',
    }).save();
    const authorize = () =>
      fetch(
        `${server.url}/auth?${new URLSearchParams({
          client_id: clientId,
          response_type: 'code',
          scope: 'openid',
          redirect_uri: REDIRECT,
          code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
          code_challenge_method: 'S256',
        })}`,
        { redirect: 'manual' },
      );
    const token = (body: Record<string, string>, path = '/token') =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { Authorization: basic, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(body),
      });

    await setState(world.owner.uid, state);
    const mint = await cli(server.config.databaseUrl, [
      'token',
      'create',
      '--user',
      world.guestEmail!,
      '--client',
      clientId,
    ]);
    expect(mint).toMatchObject({ code: 1, stdout: '' });
    expect(mint.stderr).toBe(`roster: app ${clientId} is suspended: its owner ${world.owner.uid} is ${state}\n`);
    const page = await authorize();
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('invalid_client');
    const refresh = await token({ grant_type: 'refresh_token', refresh_token: refreshToken });
    expect(refresh.status).toBe(401);
    expect(await refresh.json()).toMatchObject({ error: 'invalid_client' });
    const revoke = await token({ token: world.tokens.ownerAtOwnApp }, '/token/revocation');
    expect(revoke.status).toBe(401);

    // Nothing was deleted: reactivated, the same refresh token works.
    await setState(world.owner.uid, 'active');
    const again = await authorize();
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toMatch(/^\/interaction\//);
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: refreshToken });
    expect(refreshed.status).toBe(200);
    expect(await refreshed.json()).toMatchObject({ token_type: 'Bearer', scope: 'openid' });
  });
});
