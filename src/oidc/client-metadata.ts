import type { ClientMetadata } from 'oidc-provider';
import type { ClientAppRow } from '../stores/types.js';
import { PATHS } from '../http/paths.js';
import { EXPLORER_CLIENT_ID, explorerName } from '../services/explorer-client.js';

/** A registered app as oidc-provider client metadata. `client_secret` holds the secret's hash. */
export function clientMetadata(app: ClientAppRow): ClientMetadata {
  const confidential = app.clientSecretHash !== null;
  return {
    client_id: app.clientId,
    client_name: app.name,
    redirect_uris: app.redirectUris,
    post_logout_redirect_uris: app.redirectUris,
    // A confidential app may also get a token for itself with its secret; a public app has nothing to prove it.
    grant_types: confidential ? [...new Set([...app.grantTypes, 'client_credentials'])] : app.grantTypes,
    response_types: ['code'],
    subject_type: 'pairwise',
    // oidc-provider wants a sector identifier when redirect hosts differ. Each app is its own sector (the
    // pairwise identifier hashes the client id), so this URI only names it and is never fetched.
    ...(new Set(app.redirectUris.map((uri) => new URL(uri).host)).size > 1
      ? { sector_identifier_uri: `https://roster.invalid/sectors/${encodeURIComponent(app.clientId)}` }
      : {}),
    token_endpoint_auth_method: confidential ? 'client_secret_basic' : 'none',
    ...(confidential ? { client_secret: app.clientSecretHash! } : {}),
  };
}

/**
 * The built-in explorer (services/explorer-client.ts), a static client of the provider: public (PKCE, no
 * secret), one redirect URI on BASE_URL, no client_credentials.
 */
export function explorerClientMetadata(config: { baseUrl: string; serviceName: string }): ClientMetadata {
  return {
    client_id: EXPLORER_CLIENT_ID,
    client_name: explorerName(config.serviceName),
    redirect_uris: [`${config.baseUrl}${PATHS.explorerCallback}`],
    post_logout_redirect_uris: [`${config.baseUrl}${PATHS.graphql}`],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    subject_type: 'pairwise',
    token_endpoint_auth_method: 'none',
  };
}
