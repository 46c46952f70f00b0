import type { ClientMetadata } from 'oidc-provider';
import type { ClientAppRow } from '../stores/types.js';

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
