import Provider, { type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { Config } from '../config.js';
import type { Stores } from '../stores/stores.js';
import { constantTimeEqual, sha256 } from '../lib/secrets.js';
import { requestIdOf } from '../http/locals.js';
import { interactionHref, PATHS } from '../http/paths.js';
import { createAdapterClass } from './adapter.js';
import { explorerClientMetadata } from './client-metadata.js';
import { SCOPE_CLAIMS, SUPPORTED_SCOPES, pairwiseSubject } from './claims.js';
import { createFindAccount } from './accounts.js';
import { createInteractionPolicy } from './interaction-policy.js';
import { keySignature, loadIdentitySecrets } from '../services/signing-keys.js';
import { GRANT_TTL_SECONDS, remainingGrantTtl } from '../services/grant-lifetimes.js';
import { pinToBaseUrl } from './public-origin.js';
import { createIntrospectionPolicy } from './introspection-policy.js';
import { capClientTokens, clientCredentialsTtl, endTokensOfOldSecrets } from './client-credentials.js';
import { errorPage } from '../http/pages/error-page.js';
import { loggedOutPage, logoutPage } from '../pages/views/interaction-pages.js';
import { sendProviderPage } from '../http/pages/layout.js';

/** How long a sign-in (login, then consent) may take from the authorization request on. */
export const INTERACTION_TTL_SECONDS = 10 * 60;

const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none'] as const;
/** Introspection answers only an app that proves who it is (a public app is always told `active: false`). */
const SECRET_AUTH_METHODS = ['client_secret_basic', 'client_secret_post'] as const;

export interface Identity {
  provider: Provider;
  pairwiseSalt: string;
  /** The signing keys' ids in signing order: when it changes, the provider must be rebuilt. */
  keySignature: string;
}

/** The OpenID Connect provider, with keys, cookie keys and salt from the database. */
export async function createIdentity(deps: { config: Config; stores: Stores }): Promise<Identity> {
  const { config, stores } = deps;
  const secrets = await loadIdentitySecrets(stores);
  const configuration: Configuration = {
    adapter: createAdapterClass(stores),
    // Found before the adapter is asked: the explorer has no client_apps row.
    clients: [explorerClientMetadata(config)],
    findAccount: createFindAccount(stores),
    jwks: secrets.jwks,
    cookies: { keys: secrets.cookieKeys },
    claims: Object.fromEntries(Object.entries(SCOPE_CLAIMS).map(([s, c]) => [s, [...c]])),
    scopes: [...SUPPORTED_SCOPES],
    features: {
      devInteractions: { enabled: false },
      // Pushed authorization requests: no app here needs them, and /request would store requests unthrottled.
      pushedAuthorizationRequests: { enabled: false },
      // Bearer tokens only: /graphql and userinfo do not verify DPoP proofs.
      dPoP: { enabled: false },
      // Only the app a token was issued to may revoke it; for any other the answer is the same 200 (RFC 7009).
      revocation: { enabled: true, allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId },
      // A confidential app's own token: the app token's rights, for ACCESS_TOKEN_TTL (client-credentials.ts).
      clientCredentials: { enabled: true },
      // RFC 7662, for an app's own tokens only, and only while they would be honoured at /graphql.
      introspection: { enabled: true, allowedPolicy: createIntrospectionPolicy(stores) },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: async (ctx, form) => {
          sendProviderPage(ctx, logoutPage({ form, appName: ctx.oidc.client?.clientName }));
        },
        postLogoutSuccessSource: async (ctx) => {
          sendProviderPage(ctx, loggedOutPage({ appName: ctx.oidc.client?.clientName }));
        },
      },
      userinfo: { enabled: true },
    },
    routes: { userinfo: PATHS.userinfo },
    // Only what an app can use (client-metadata.ts): the code flow; a confidential app's secret in the
    // Authorization header or in the body (the provider takes either for an app registered with one), or none.
    responseTypes: ['code'],
    clientAuthMethods: [...CLIENT_AUTH_METHODS],
    // Revocation authenticates the client the same way; RFC 8414's default (basic only) would omit the others.
    discovery: {
      revocation_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
      introspection_endpoint_auth_methods_supported: [...SECRET_AUTH_METHODS],
    },
    // A browser app (a public client: the explorer, a single-page app) calls the token and revocation endpoints
    // from the origin of its redirect URIs; a confidential app calls from its server, never from a page.
    clientBasedCORS: (_ctx, origin, client) =>
      client.clientAuthMethod === 'none' &&
      (client.redirectUris ?? []).some((uri) => URL.parse(uri)?.origin === origin),
    // Bad authorization requests get our page, in our style, saying what is wrong.
    renderError: async (ctx, out) => {
      const requestId = requestIdOf(ctx.res);
      sendProviderPage(ctx, errorPage({ error: out.error, description: out.error_description, requestId }));
    },
    // The session's grant, else the newest one this user gave this app: consent is remembered across browsers.
    loadExistingGrant: async (ctx) => {
      const clientId = ctx.oidc.client!.clientId;
      const fromSession = ctx.oidc.result?.consent?.grantId || ctx.oidc.session!.grantIdFor(clientId);
      const grant = fromSession ? await ctx.oidc.provider.Grant.find(fromSession) : undefined;
      if (grant) return grant;
      const stored = await stores.oidc.latestGrantId(ctx.oidc.session!.accountId!, clientId);
      return stored ? ctx.oidc.provider.Grant.find(stored) : undefined;
    },
    interactions: { policy: createInteractionPolicy(), url: (_ctx, interaction) => interactionHref(interaction.uid) },
    ttl: {
      AccessToken: config.accessTokenTtl,
      ClientCredentials: clientCredentialsTtl(config.accessTokenTtl),
      AuthorizationCode: 60,
      IdToken: 3600,
      Grant: GRANT_TTL_SECONDS,
      // An abandoned sign-in costs a row until it expires: long enough to type a password, no longer.
      Interaction: INTERACTION_TTL_SECONDS,
      // Never past its grant's end: a refresh token issued later in the grant's life gets what is left of it.
      // No request context when a token is saved outside one (oidc-provider's own default guards the same).
      RefreshToken: (ctx: KoaContextWithOIDC | undefined) => remainingGrantTtl(ctx?.oidc?.entities.Grant?.exp),
      Session: 14 * 24 * 3600,
    },
    // Refresh tokens for every app whose grant types list them (no offline_access scope here).
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    // Every subject is pairwise, keyed by the client id (not the redirect host), so an app may use several hosts.
    subjectTypes: ['pairwise'],
    sectorIdentifierUriValidate: () => false,
    pairwiseIdentifier: async (_ctx, accountId, client) =>
      pairwiseSubject(client.clientId, accountId, secrets.pairwiseSalt),
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: 'RS256',
      subject_type: 'pairwise',
    },
  };
  const provider = new Provider(config.baseUrl, configuration);
  pinToBaseUrl(provider, config.baseUrl);
  capClientTokens(provider, stores);
  provider.use(endTokensOfOldSecrets(stores));
  // Client secrets are stored as SHA-256 hashes: compare the hash of what the client sent.
  provider.Client.prototype.compareClientSecret = function compare(this: { clientSecret?: string }, actual: string) {
    return Promise.resolve(constantTimeEqual(this.clientSecret ?? '', sha256(actual)));
  };
  return { provider, pairwiseSalt: secrets.pairwiseSalt, keySignature: keySignature(secrets.jwks.keys) };
}
