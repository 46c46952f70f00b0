import type { Stores } from '../db/stores.js';
import { BearerError, invalidToken, malformedAuthorization, missingToken } from '../errors/bearer-error.js';
import { APP_TOKEN_PREFIX } from '../db/app-store.js';
import type { Viewer } from './viewer.js';

/** What the token store knows of a user access token (oidc-provider's AccessToken, looked up). */
export interface AccessTokenInfo {
  accountId: string;
  clientId: string;
  scopes: string[];
}

/** Looks up a user access token; undefined when unknown, expired, revoked or its grant is gone. */
export type AccessTokenLookup = (token: string) => Promise<AccessTokenInfo | undefined>;

// RFC 6750 §2.1 b64token syntax.
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const MAX_TOKEN_LENGTH = 4096;

/** Extracts the token of `Authorization: Bearer <token>`; throws a BearerError otherwise. */
export function bearerToken(header: string | undefined): string {
  if (header === undefined || header.trim() === '') throw missingToken();
  const match = /^(\S+)(?: +(.*))?$/.exec(header.trim());
  if (!match || match[1]!.toLowerCase() !== 'bearer') throw missingToken();
  const token = match[2]?.trim() ?? '';
  if (token === '' || token.length > MAX_TOKEN_LENGTH || !B64TOKEN.test(token)) throw malformedAuthorization();
  return token;
}

/** One resolver for /graphql and userinfo alike: a token string to the viewer it speaks for. */
export function createBearerResolver(stores: Stores, lookupAccessToken: AccessTokenLookup) {
  return async function resolveToken(token: string): Promise<Viewer> {
    if (token.startsWith(APP_TOKEN_PREFIX)) {
      const app = await stores.apps.findByAppToken(token);
      if (!app) throw invalidToken();
      return { kind: 'app', appId: app.id, clientId: app.clientId, ownerId: app.ownerId, scopes: [] };
    }
    const info = await lookupAccessToken(token);
    if (!info) throw invalidToken();
    // A token dies with its user's activation and with its app.
    const subject = await stores.users.withApp(info.accountId, info.clientId);
    if (!subject || subject.activationState !== 'active') throw invalidToken();
    return {
      kind: 'user',
      userId: subject.userId,
      uid: info.accountId,
      appId: subject.appId,
      clientId: info.clientId,
      scopes: info.scopes,
    };
  };
}

export type BearerResolver = ReturnType<typeof createBearerResolver>;

/** Resolves the Authorization header to a viewer, or throws a BearerError. */
export async function resolveAuthorization(resolver: BearerResolver, header: string | undefined): Promise<Viewer> {
  return resolver(bearerToken(header));
}

export { BearerError };
