import { LRUCache } from 'lru-cache';
import type { Epochs } from '../stores/epoch-store.js';
import type { Stores } from '../stores/stores.js';
import type { TokenSubject } from '../stores/user-store.js';
import { InvalidToken } from './errors.js';
import { APP_TOKEN_PREFIX, PERSONAL_TOKEN_PREFIX } from '../lib/ids.js';
import { sha256 } from '../lib/secrets.js';
import { appViewer, type Viewer } from './viewer.js';
import { isActive } from './account-state.js';
import { EXPLORER_APP_ID, EXPLORER_CLIENT_ID } from './explorer-client.js';

/** What the token store knows of a user access token (oidc-provider's AccessToken, looked up). */
export interface AccessTokenInfo {
  kind: 'user';
  accountId: string;
  clientId: string;
  scopes: string[];
  /** When the token or its grant expires, epoch milliseconds. */
  expiresAt: number;
}

/** An app's token for itself (the client_credentials grant): the app token's rights until it expires. */
export interface ClientTokenInfo {
  kind: 'client';
  clientId: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

/** Looks up an access token; undefined when unknown, expired, revoked or (a user's) its grant is gone. */
export type AccessTokenLookup = (token: string) => Promise<AccessTokenInfo | ClientTokenInfo | undefined>;

/** The built-in explorer has no client_apps row (nor an owner to suspend it): only its user matters. */
async function explorerSubject(stores: Stores, uid: string, appName: string): Promise<TokenSubject | undefined> {
  const user = await stores.users.findByUid(uid);
  return user && { userId: user.id, activationState: user.activationState, appId: EXPLORER_APP_ID, appName };
}

/** Resolved tokens kept per instance: at most this many, for at most this long. */
const CACHE_ENTRIES = 10_000;
const CACHE_TTL_MS = 60_000;

interface CachedViewer {
  viewer: Viewer;
  expiresAt: number;
  /** The auth epoch read before the lookup that produced it. */
  epoch: string;
}

/**
 * One lookup for /graphql and userinfo alike: a token string to the viewer it speaks for.
 *
 * A resolved viewer is cached (by the token's hash) and reused only while the database's auth epoch
 * is the one read before its lookup: triggers bump it on every write that may end a token, so a
 * revocation by any instance or by the CLI holds from the next request on. A cached entry never
 * outlives its token or grant, and failures are never cached.
 */
export function createViewerLookup(
  stores: Stores,
  lookupAccessToken: AccessTokenLookup,
  options: {
    /** The built-in explorer's name, as its tokens' viewers show it. */
    explorerName: string;
    /** Told of every request a personal access token makes (its last use is written in batches). */
    onPersonalTokenUse?: (id: number) => void;
  },
) {
  const { explorerName, onPersonalTokenUse } = options;
  const cache = new LRUCache<string, CachedViewer>({ max: CACHE_ENTRIES, ttl: CACHE_TTL_MS });
  let lastEpoch: string | undefined;

  async function lookup(token: string): Promise<{ viewer: Viewer; expiresAt: number }> {
    if (token.startsWith(APP_TOKEN_PREFIX)) {
      // Unknown, rotated, or its app suspended (owner inactive): the same 401 for each.
      const app = await stores.apps.findByAppToken(token);
      if (!app) throw new InvalidToken();
      return { viewer: appViewer(app), expiresAt: Infinity };
    }
    if (token.startsWith(PERSONAL_TOKEN_PREFIX)) {
      // Unknown, revoked, expired, or its user not active: the same 401 for each.
      const pat = await stores.personalTokens.findLive(sha256(token));
      if (!pat) throw new InvalidToken();
      const viewer: Viewer = {
        kind: 'user',
        userId: pat.userId,
        uid: pat.uid,
        appId: null,
        clientId: null,
        appName: null,
        scopes: pat.scopes,
        personalToken: { id: pat.id, name: pat.name, expiresAt: pat.expiresAt },
      };
      return { viewer, expiresAt: pat.expiresAt };
    }
    const info = await lookupAccessToken(token);
    if (!info) throw new InvalidToken();
    if (info.kind === 'client') {
      // Suspended (owner inactive) or deleted since: the token ends with the app, as its app token does.
      const app = await stores.apps.findActiveByClientId(info.clientId);
      if (!app) throw new InvalidToken();
      return { viewer: appViewer(app), expiresAt: info.expiresAt };
    }
    // A token dies with its user's activation and with its app (deleted, or suspended: owner inactive).
    const subject =
      info.clientId === EXPLORER_CLIENT_ID
        ? await explorerSubject(stores, info.accountId, explorerName)
        : await stores.users.withApp(info.accountId, info.clientId);
    if (!subject || !isActive(subject)) throw new InvalidToken();
    const viewer: Viewer = {
      kind: 'user',
      userId: subject.userId,
      uid: info.accountId,
      appId: subject.appId,
      clientId: info.clientId,
      appName: subject.appName,
      scopes: info.scopes,
    };
    return { viewer, expiresAt: info.expiresAt };
  }

  const noteUse = (viewer: Viewer) => {
    if (viewer.kind === 'user' && viewer.personalToken) onPersonalTokenUse?.(viewer.personalToken.id);
  };

  /**
   * The viewer, the database's epochs read before it was resolved (a cached answer needs the data one) and
   * when (performance.now()), and when the token ends (epoch ms; Infinity for an app token).
   */
  return async function resolveToken(token: string): Promise<ResolvedToken> {
    // Taken before the read, which starts after it (epoch-store.ts): what is kept by it is never older than this says.
    const epochsReadAt = performance.now();
    const epochs = await stores.epochs.current();
    const epoch = epochs.auth;
    if (epoch !== lastEpoch) {
      cache.clear(); // everything cached before the bump is suspect
      lastEpoch = epoch;
    }
    const key = sha256(token);
    const hit = cache.get(key);
    if (hit && hit.epoch === epoch) {
      noteUse(hit.viewer);
      return { viewer: hit.viewer, epochs, epochsReadAt, expiresAt: hit.expiresAt };
    }
    const { viewer, expiresAt } = await lookup(token);
    noteUse(viewer);
    const ttl = Math.min(CACHE_TTL_MS, expiresAt - Date.now());
    // Only if no bump happened meanwhile: a lookup that straddles one may have read either side of it.
    if (ttl > 0 && epoch === lastEpoch) {
      Object.freeze(viewer.scopes);
      cache.set(key, { viewer: Object.freeze(viewer), epoch, expiresAt }, { ttl });
    }
    return { viewer, epochs, epochsReadAt, expiresAt };
  };
}

export interface ResolvedToken {
  viewer: Viewer;
  epochs: Epochs;
  epochsReadAt: number;
  expiresAt: number;
}

export type ViewerLookup = ReturnType<typeof createViewerLookup>;
