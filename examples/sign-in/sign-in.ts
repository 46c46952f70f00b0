import * as oidc from 'openid-client';
import { listenForCallback } from './callback-listener.js';

export interface SignInOptions {
  /** Roster's base URL, the OpenID issuer (discovery is at /.well-known/openid-configuration). */
  issuer: string;
  clientId: string;
  /** A confidential app's secret; leave it out for a public app (PKCE alone). */
  clientSecret?: string;
  /** One of the app's registered redirect URIs, on this machine: the sign-in comes back there. */
  redirectUri: string;
  scope: string;
  /** Called with the URL the user opens in a browser to sign in and consent. */
  openInBrowser(url: URL): void;
}

/** Signs a user in with the authorization code flow and PKCE; returns the tokens, ID token claims and userinfo. */
export async function signIn(options: SignInOptions) {
  const issuer = new URL(options.issuer);
  const config = await oidc.discovery(
    issuer,
    options.clientId,
    undefined,
    options.clientSecret ? oidc.ClientSecretBasic(options.clientSecret) : oidc.None(),
    // openid-client 6 refuses plain HTTP: allow it only for a Roster on this machine (http://localhost:4000).
    issuer.protocol === 'http:' ? { execute: [oidc.allowInsecureRequests] } : undefined,
  );

  const verifier = oidc.randomPKCECodeVerifier();
  // state ties the callback to this run; nonce ties the ID token to it.
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: options.redirectUri,
    scope: options.scope,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });

  const listener = await listenForCallback(options.redirectUri);
  let callbackUrl: URL;
  try {
    options.openInBrowser(url);
    callbackUrl = await listener.callback;
  } finally {
    await listener.close();
  }

  // Checks state, exchanges the code with the verifier, and validates the ID token (signature, iss, aud, nonce).
  const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
    pkceCodeVerifier: verifier,
    expectedState: state,
    expectedNonce: nonce,
    idTokenExpected: true,
  });
  const claims = tokens.claims()!;
  const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
  return { tokens, claims, userinfo };
}
