import { escapeHtml } from '../../src/http/pages/html.js';
import type { ClientAppRow } from '../../src/stores/types.js';
import { useSignedInOwner } from '../helpers/account-session.js';

// Editing an app's redirect URIs on the account page: the rules of registration, and the provider follows at once.

const OLD_URI = 'https://old.example/callback';
const NEW_URI = 'https://new.example/callback';

const t = useSignedInOwner('Edda');
let app: ClientAppRow;

beforeEach(async () => {
  ({ app } = await t.server.stores.apps.create({
    ownerId: t.user.id,
    name: 'Badge Printer',
    redirectUris: [OLD_URI, 'http://localhost:8080/cb'],
  }));
});

const editPath = () => `/account/apps/${app.id}/edit`;
const textarea = (text: string) => /<textarea[^>]*name="redirect_uris"[^>]*>([^<]*)<\/textarea>/.exec(text)?.[1];
const alertOf = (text: string) => /<p class="alert" role="alert">([^<]*)<\/p>/.exec(text)?.[1];
const stored = async () => (await t.server.stores.apps.findByClientId(app.clientId))!.redirectUris;

/** Where the provider sends an authorization request naming this redirect URI: the sign-in page, or an error. */
async function authorize(redirectUri: string) {
  const params = new URLSearchParams({
    client_id: app.clientId,
    response_type: 'code',
    scope: 'openid',
    redirect_uri: redirectUri,
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  });
  const res = await fetch(`${t.server.url}/auth?${params}`, { redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}

it('shows the current URIs, one a line, in the form', async () => {
  const page = await t.session.get(editPath());
  expect(page.status).toBe(200);
  expect(textarea(page.text)).toBe(`${OLD_URI}\nhttp://localhost:8080/cb`);
  expect(page.text).toContain('<h1>Redirect URIs of Badge Printer</h1>');
});

it('saves the new list, and the provider takes the new URI and refuses the old one at once', async () => {
  // The provider has seen the app with its old URIs (a cached client must not outlive the edit).
  expect((await authorize(OLD_URI)).location).toMatch(/^\/interaction\//);
  expect((await authorize(NEW_URI)).status).toBe(400);

  const saved = await t.session.post(editPath(), { redirect_uris: `  ${NEW_URI}\r\n\r\n${NEW_URI}\r\n` });
  expect(saved).toMatchObject({ status: 303, location: '/account?done=edited' });
  expect(await stored()).toEqual([NEW_URI]);
  expect((await t.session.get(saved.location!)).text).toContain('The redirect URIs were saved');

  expect((await authorize(NEW_URI)).location).toMatch(/^\/interaction\//);
  const refused = await authorize(OLD_URI);
  expect(refused.status).toBe(400);
  expect(refused.text).toContain('<code>invalid_redirect_uri</code>');
});

describe('refuses what registration refuses, with the same one-line message, storing nothing', () => {
  test.each<[string, string | undefined]>([
    ['not a url', 'Redirect URI must be an absolute http(s) URL.'],
    ['', 'Enter at least one redirect URI.'],
    [Array.from({ length: 11 }, (_, i) => `https://many.example/${i}`).join('\n'), 'At most 10 redirect URIs.'],
    ['https://fine.example/cb\njavascript:alert(1)', undefined],
    ['https://has.example/cb#fragment', undefined],
  ])('%j', async (typed, expected) => {
    const refused = await t.session.post(editPath(), { redirect_uris: typed });
    expect(refused.status).toBe(400);
    const message = alertOf(refused.text)!;
    if (expected) expect(message).toBe(expected);
    expect(message).not.toContain('\n');
    // Registration's own answer to the same list.
    const registered = await t.session.post('/account/apps', {
      name: 'Same Rules',
      redirect_uris: typed,
      type: 'public',
    });
    expect(registered.status).toBe(400);
    expect(alertOf(registered.text)).toBe(message);

    expect(textarea(refused.text)).toBe(escapeHtml(typed));
    expect(await stored()).toEqual([OLD_URI, 'http://localhost:8080/cb']);
    expect(await t.server.stores.apps.listByOwner(t.user.id)).toHaveLength(1);
  });
});

it('needs the session’s CSRF token', async () => {
  const forged = await t.session.post(editPath(), { _csrf: null, redirect_uris: 'https://evil.example/cb' });
  expect(forged.status).toBe(403);
  expect(await stored()).toEqual([OLD_URI, 'http://localhost:8080/cb']);
});

it('another user’s app is a 404, and stays as it was', async () => {
  const other = await t.server.stores.users.create({ email: `other${t.n}@example.com`, name: 'Otto' });
  const theirs = await t.server.stores.apps.create({ ownerId: other.id, name: 'Theirs', redirectUris: [OLD_URI] });
  const path = `/account/apps/${theirs.app.id}/edit`;
  expect((await t.session.get(path)).status).toBe(404);
  expect((await t.session.post(path, { redirect_uris: 'https://evil.example/cb' })).status).toBe(404);
  expect((await t.server.stores.apps.findByClientId(theirs.app.clientId))!.redirectUris).toEqual([OLD_URI]);
});
