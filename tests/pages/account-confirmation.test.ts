import { signedInUser, useSignedInOwner } from '../helpers/account-session.js';
import { gql } from '../helpers/graphql.js';

// Every destructive account action is two steps: its confirmation page, then the confirmed POST. A POST
// without `confirm=yes` only asks again, whoever sends it; the CSRF token and ownership are checked first.

const VIEWER = '{ viewer { tokenKind } }';

const t = useSignedInOwner('Carla');

const newApp = (ownerId = t.user.id, name = `Door App ${t.n}`) =>
  t.server.stores.apps.create({ ownerId, name, redirectUris: ['https://door.example/cb'] });

/** The confirmation page: named after the app, with the real action's form carrying confirm=yes. */
function expectConfirmation(text: string, action: string, title: string) {
  expect(text).toContain(`<h1>${title}</h1>`);
  expect(text).toContain(`<form method="post" action="${action}">`);
  expect(text).toContain('<input type="hidden" name="confirm" value="yes" />');
}

describe('deleting an app', () => {
  it('asks on GET and on an unconfirmed POST, and deletes only when confirmed', async () => {
    const made = await newApp();
    const path = `/account/apps/${made.app.id}/delete`;
    const asked = await t.session.get(path);
    expect(asked.status).toBe(200);
    expectConfirmation(asked.text, path, `Delete ${made.app.name}?`);
    expect(asked.text).toContain('This cannot be undone');

    for (const confirm of [null, 'no', '1', 'YES']) {
      const posted = await t.session.post(path, { confirm });
      expect(posted.status).toBe(200);
      expectConfirmation(posted.text, path, `Delete ${made.app.name}?`);
    }
    expect(await t.server.stores.apps.findByClientId(made.app.clientId)).toBeDefined();
    expect((await gql(t.server, made.appToken, VIEWER)).status).toBe(200);

    const done = await t.session.post(path, { confirm: 'yes' });
    expect(done).toMatchObject({ status: 303, location: '/account?done=deleted' });
    expect(await t.server.stores.apps.findByClientId(made.app.clientId)).toBeUndefined();
    expect((await gql(t.server, made.appToken, VIEWER)).status).toBe(401);
  });

  it('still needs the CSRF token of this session, confirmed or not', async () => {
    const made = await newApp();
    const path = `/account/apps/${made.app.id}/delete`;
    const without = await t.session.post(path, { _csrf: null, confirm: 'yes' });
    expect(without.status).toBe(403);
    expect(without.text).toContain('This form has expired');

    // Another user's session and token, sent with this session's cookies.
    const { session: theirs } = await signedInUser(t.server, 'Otto');
    const forged = await t.session.post(path, { _csrf: theirs.csrf, confirm: 'yes' });
    expect(forged.status).toBe(403);
    expect(await t.server.stores.apps.findByClientId(made.app.clientId)).toBeDefined();
  });

  it('another user’s app cannot be confirmed away: the same 404 as no app at all', async () => {
    const other = await t.server.stores.users.create({ email: `victim${t.n}@example.com`, name: 'Vic' });
    const theirs = await newApp(other.id, 'Their App');
    for (const action of ['delete', 'token', 'secret']) {
      const confirmed = await t.session.post(`/account/apps/${theirs.app.id}/${action}`, { confirm: 'yes' });
      expect(confirmed.status).toBe(404);
      const none = await t.session.post(`/account/apps/99999999/${action}`, { confirm: 'yes' });
      expect(none.text).toBe(confirmed.text);
      expect((await t.session.get(`/account/apps/${theirs.app.id}/${action}`)).status).toBe(404);
    }
    expect(await t.server.stores.apps.findByClientId(theirs.app.clientId)).toMatchObject({
      clientSecretHash: theirs.app.clientSecretHash,
    });
    expect((await gql(t.server, theirs.appToken, VIEWER)).status).toBe(200);
  });
});

describe('replacing credentials', () => {
  it('a new app token only when confirmed; until then the old one works', async () => {
    const made = await newApp();
    const path = `/account/apps/${made.app.id}/token`;
    expectConfirmation((await t.session.get(path)).text, path, `Replace the app token of ${made.app.name}?`);
    const asked = await t.session.post(path, {});
    expectConfirmation(asked.text, path, `Replace the app token of ${made.app.name}?`);
    expect(asked.text).not.toContain('rst_app_');
    expect((await gql(t.server, made.appToken, VIEWER)).status).toBe(200);

    const done = await t.session.post(path, { confirm: 'yes' });
    expect(done.status).toBe(200);
    const token = /id="app-token" class="secret">([^<]+)</.exec(done.text)![1]!;
    expect((await gql(t.server, made.appToken, VIEWER)).status).toBe(401);
    expect((await gql(t.server, token, VIEWER)).status).toBe(200);
  });

  it('a new client secret only when confirmed', async () => {
    const made = await newApp();
    const path = `/account/apps/${made.app.id}/secret`;
    expectConfirmation((await t.session.get(path)).text, path, `Replace the client secret of ${made.app.name}?`);
    expect((await t.session.post(path, {})).text).not.toContain('rst_cs_');
    expect((await t.server.stores.apps.findByClientId(made.app.clientId))!.clientSecretHash).toBe(
      made.app.clientSecretHash,
    );

    const done = await t.session.post(path, { confirm: 'yes' });
    expect(done.text).toMatch(/id="client-secret" class="secret">rst_cs_/);
    expect((await t.server.stores.apps.findByClientId(made.app.clientId))!.clientSecretHash).not.toBe(
      made.app.clientSecretHash,
    );
  });
});

describe('revoking an authorization', () => {
  it('asks first, names the app, and revokes only when confirmed', async () => {
    const owner = await t.server.stores.users.create({ email: `dev${t.n}@example.com`, name: 'Dev' });
    const { app } = await newApp(owner.id, 'Seating Planner');
    const grant = new t.server.provider.Grant({ accountId: t.user.uid, clientId: app.clientId });
    grant.addOIDCScope('openid email');
    await grant.save();
    const path = `/account/authorizations/${app.clientId}/revoke`;

    expectConfirmation((await t.session.get(path)).text, path, 'Revoke the access of Seating Planner?');
    expectConfirmation((await t.session.post(path, {})).text, path, 'Revoke the access of Seating Planner?');
    expect(await t.server.stores.oidc.grantsOf(t.user.uid)).toHaveLength(1);
    expect((await t.session.post(path, { _csrf: null, confirm: 'yes' })).status).toBe(403);
    expect(await t.server.stores.oidc.grantsOf(t.user.uid)).toHaveLength(1);

    const done = await t.session.post(path, { confirm: 'yes' });
    expect(done).toMatchObject({ status: 303, location: '/account?done=revoked' });
    expect(await t.server.stores.oidc.grantsOf(t.user.uid)).toEqual([]);
  });

  it('an app the user has not authorized is a 404, confirmed or not', async () => {
    const { app } = await newApp();
    const path = `/account/authorizations/${app.clientId}/revoke`;
    expect((await t.session.get(path)).status).toBe(404);
    expect((await t.session.post(path, { confirm: 'yes' })).status).toBe(404);
  });
});

it('signed out, a confirmation page is the sign-in form', async () => {
  const made = await newApp();
  const res = await fetch(`${t.server.url}/account/apps/${made.app.id}/delete`);
  expect(res.status).toBe(401);
  expect(await res.text()).toContain('Your session has ended');
});
