import { startServer, type TestServer } from '../helpers/harness.js';

// Discovery advertises only what a registered app can use: the authorization code flow with PKCE, refresh
// tokens, and client_secret_basic or client_secret_post (confidential apps) or none (public apps).

let server: TestServer;
let clientId: string;
let clientSecret: string;
const REDIRECT_URI = 'http://localhost:3000/callback';

beforeAll(async () => {
  server = await startServer();
  const owner = await server.stores.users.create({ email: 'owner@example.com', name: 'Owner' });
  const made = await server.stores.apps.create({
    ownerId: owner.id,
    name: 'Badge Printer',
    redirectUris: [REDIRECT_URI],
  });
  clientId = made.app.clientId;
  clientSecret = made.clientSecret!;
});
afterAll(() => server.close());

test('discovery lists exactly the response types, grant types, modes and auth methods apps can use', async () => {
  const res = await fetch(`${server.url}/.well-known/openid-configuration`);
  const doc = (await res.json()) as Record<string, unknown>;
  expect(doc.response_types_supported).toEqual(['code']);
  expect(doc.grant_types_supported).toEqual(['authorization_code', 'refresh_token', 'client_credentials']);
  expect(doc.response_modes_supported).toEqual(['form_post', 'fragment', 'query']);
  expect(doc.token_endpoint_auth_methods_supported).toEqual(['client_secret_basic', 'client_secret_post', 'none']);
  expect(doc.revocation_endpoint_auth_methods_supported).toEqual(['client_secret_basic', 'client_secret_post', 'none']);
  expect(doc.code_challenge_methods_supported).toEqual(['S256']);
  expect(doc.introspection_endpoint).toBe(`${server.url}/token/introspection`);
  expect(doc.introspection_endpoint_auth_methods_supported).toEqual(['client_secret_basic', 'client_secret_post']);
  expect(doc.claim_types_supported).toEqual(['normal']); // the provider's other defaults are kept
  expect(doc).not.toHaveProperty('token_endpoint_auth_signing_alg_values_supported');
});

/** An authorization request as a browser sends it, without following the answer. */
function authorize(params: Record<string, string>) {
  const query = new URLSearchParams({
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    scope: 'openid',
    state: 'st',
    nonce: 'n',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
    ...params,
  });
  return fetch(`${server.url}/auth?${query}`, { redirect: 'manual' });
}

test.each(['token', 'id_token', 'id_token token', 'code id_token', 'code token', 'none'])(
  'response_type=%s (implicit, hybrid, none) goes back to the app as unsupported_response_type',
  async (responseType) => {
    const res = await authorize({ response_type: responseType });
    // RFC 6749 §4.1.2.1: the redirect URI is registered, so the error goes back to the app, with its state.
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location')!);
    expect(location.origin + location.pathname).toBe(REDIRECT_URI);
    const params = new URLSearchParams(location.hash.slice(1) || location.search);
    expect(params.get('error')).toBe('unsupported_response_type');
    expect(params.get('state')).toBe('st');
  },
);

test('response_type=token with an unregistered redirect URI gets our error page, not a redirect', async () => {
  const res = await authorize({ response_type: 'token', redirect_uri: 'https://evil.example/cb' });
  expect(res.status).toBe(400);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(await res.text()).toContain('redirect_uri');
});

test('response_type=code is still accepted (to the sign-in interaction)', async () => {
  const res = await authorize({ response_type: 'code' });
  expect(res.status).toBe(303);
  expect(res.headers.get('location')).toMatch(/^\/interaction\//);
});

test.each(['query', 'fragment', 'form_post'])(
  'response_mode=%s, as advertised, is accepted with the code flow',
  async (mode) => {
    const res = await authorize({ response_type: 'code', response_mode: mode });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(/^\/interaction\//);
  },
);

test('an unknown response_mode goes back to the app as unsupported_response_mode', async () => {
  const res = await authorize({ response_type: 'code', response_mode: 'web_message' });
  expect(res.status).toBe(303);
  expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('unsupported_response_mode');
});

test.each(['implicit', 'password', 'urn:ietf:params:oauth:grant-type:device_code'])(
  'grant_type=%s at the token endpoint is unsupported_grant_type',
  async (grantType) => {
    const res = await fetch(`${server.url}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: grantType }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('unsupported_grant_type');
  },
);
