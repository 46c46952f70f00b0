import * as oidc from 'openid-client';

/** openid-client 6 configured for one app of the test server (plain HTTP allowed: it is local). */
export async function discover(issuer: string, clientId: string, clientSecret?: string): Promise<oidc.Configuration> {
  return oidc.discovery(
    new URL(issuer),
    clientId,
    undefined,
    clientSecret ? oidc.ClientSecretBasic(clientSecret) : oidc.None(),
    { execute: [oidc.allowInsecureRequests] },
  );
}

export interface AuthorizationRequest {
  url: URL;
  codeVerifier: string;
  nonce: string;
  state: string;
}

/** An authorization URL with PKCE (S256), nonce and state, as a careful app builds it. */
export async function authorizationRequest(
  config: oidc.Configuration,
  params: { redirectUri: string; scope: string; extra?: Record<string, string> },
): Promise<AuthorizationRequest> {
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const nonce = oidc.randomNonce();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: params.redirectUri,
    scope: params.scope,
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    nonce,
    state,
    ...params.extra,
  });
  return { url, codeVerifier, nonce, state };
}

/** The token request for the code the browser brought back, checking PKCE, nonce and state. */
export function exchangeCode(config: oidc.Configuration, callbackUrl: string | URL, request: AuthorizationRequest) {
  return oidc.authorizationCodeGrant(config, new URL(callbackUrl), {
    pkceCodeVerifier: request.codeVerifier,
    expectedNonce: request.nonce,
    expectedState: request.state,
  });
}
