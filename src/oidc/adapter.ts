import type { Adapter, AdapterPayload } from 'oidc-provider';
import { sha256 } from '../lib/secrets.js';
import { openPayload, sealPayload } from '../stores/oidc-payload.js';
import type { Stores } from '../stores/stores.js';
import { clientMetadata } from './client-metadata.js';

// Only the grant and its tokens are filed under it: a pending sign-in naming an old grant must outlive that
// grant's revocation (switching accounts revokes the first account's grant).
const FILED_UNDER_GRANT = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
]);

function grantIdOf(model: string, payload: AdapterPayload): string | null {
  const grantId = model === 'Grant' ? payload.jti : FILED_UNDER_GRANT.has(model) ? payload.grantId : undefined;
  return grantId ? sha256(grantId) : null;
}

/** oidc-provider's persistence through the OIDC store; clients come from the client_apps table (the explorer is static). */
export function createAdapterClass(stores: Stores) {
  return class KnexAdapter implements Adapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      await stores.oidc.upsert(this.model, sha256(id), {
        // Keyed by the id's hash, and without the id (or a cookie) inside: the table holds no secret.
        payload: sealPayload(this.model, id, payload),
        // A grant is filed under its own id too, so revoking it removes it with its tokens.
        grantId: grantIdOf(this.model, payload),
        uid: payload.uid ? sha256(payload.uid) : null,
        userCode: payload.userCode ? sha256(payload.userCode) : null,
        accountId: payload.accountId ?? null,
        clientId: payload.clientId ?? null,
        expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : null,
      });
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (this.model === 'Client') {
        // A suspended app (owner not active) is no client: no sign-in, token, refresh or revocation.
        const app = await stores.apps.findActiveByClientId(id);
        return app ? clientMetadata(app) : undefined;
      }
      return this.load('id', sha256(id), id);
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return this.load('uid', sha256(uid));
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return this.load('user_code', sha256(userCode));
    }

    async consume(id: string): Promise<void> {
      await stores.oidc.consume(this.model, sha256(id));
    }

    async destroy(id: string): Promise<void> {
      await stores.oidc.destroy(this.model, sha256(id));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await stores.oidc.revokeByGrantId(sha256(grantId));
    }

    private async load(column: 'id' | 'uid' | 'user_code', key: string, id?: string) {
      const record = await stores.oidc.find(this.model, column, key);
      if (!record || (record.expiresAt !== null && record.expiresAt <= Date.now())) return undefined;
      const payload = openPayload(this.model, id, record.payload) as AdapterPayload;
      if (record.consumedAt !== null) payload.consumed = Math.floor(record.consumedAt / 1000);
      return payload;
    }
  };
}
