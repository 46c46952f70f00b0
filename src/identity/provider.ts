import Provider, { type Configuration } from 'oidc-provider';
import type { Config } from '../config.js';
import type { Stores } from '../db/stores.js';
import { constantTimeEqual, sha256 } from '../auth/secrets.js';
import { createAdapterClass } from './adapter.js';
import { SCOPE_CLAIMS, SUPPORTED_SCOPES, pairwiseSubject } from './claims.js';
import { createFindAccount } from './find-account.js';
import { loadIdentitySecrets } from './keys.js';

export const USERINFO_PATH = '/openid/userinfo';

export interface Identity {
  provider: Provider;
  pairwiseSalt: string;
}

/** The OpenID Connect provider, with keys, cookie keys and salt from the database. */
export async function createIdentity(deps: { config: Config; stores: Stores }): Promise<Identity> {
  const { config, stores } = deps;
  const secrets = await loadIdentitySecrets(stores);
  const configuration: Configuration = {
    adapter: createAdapterClass(stores),
    findAccount: createFindAccount(stores, secrets.pairwiseSalt),
    jwks: secrets.jwks as Configuration['jwks'],
    cookies: { keys: secrets.cookieKeys },
    claims: Object.fromEntries(Object.entries(SCOPE_CLAIMS).map(([s, c]) => [s, [...c]])),
    scopes: [...SUPPORTED_SCOPES],
    features: {
      devInteractions: { enabled: false },
      // Bearer tokens only: /graphql and userinfo do not verify DPoP proofs.
      dPoP: { enabled: false },
      revocation: { enabled: true },
      rpInitiatedLogout: { enabled: true },
      userinfo: { enabled: true },
    },
    routes: { userinfo: USERINFO_PATH },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    ttl: {
      AccessToken: config.accessTokenTtl,
      AuthorizationCode: 60,
      IdToken: 3600,
      Grant: 14 * 24 * 3600,
      Interaction: 3600,
      RefreshToken: 14 * 24 * 3600,
      Session: 14 * 24 * 3600,
    },
    // Refresh tokens for every app whose grant types list them (no offline_access scope here).
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    // Subjects are made pairwise in findAccount (hash of client id), so apps may use several redirect hosts.
    pairwiseIdentifier: async (_ctx, accountId, client) =>
      pairwiseSubject(client.clientId, accountId, secrets.pairwiseSalt),
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: 'RS256',
    },
  };
  const provider = new Provider(config.baseUrl, configuration);
  provider.proxy = config.trustProxy;
  // Client secrets are stored as SHA-256 hashes: compare the hash of what the client sent.
  provider.Client.prototype.compareClientSecret = function compare(this: { clientSecret?: string }, actual: string) {
    return Promise.resolve(constantTimeEqual(this.clientSecret ?? '', sha256(actual)));
  } as never;
  // Discovery tells the truth: every subject is pairwise (computed in findAccount).
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.path === '/.well-known/openid-configuration' && ctx.body && typeof ctx.body === 'object') {
      (ctx.body as Record<string, unknown>).subject_types_supported = ['pairwise'];
    }
  });
  return { provider, pairwiseSalt: secrets.pairwiseSalt };
}
