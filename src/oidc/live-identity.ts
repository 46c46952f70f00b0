import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import { requestIdOf } from '../http/locals.js';
import { keySignature, signingOrder } from '../services/signing-keys.js';
import type { AuditService } from '../services/audit.js';
import { auditProviderEvents } from './audit-events.js';
import { createIdentity, type Identity } from './provider.js';

type IdentityDeps = Parameters<typeof createIdentity>[0];

/** The provider of this instance, rebuilt when the signing keys in the database change (no restart). */
export interface LiveIdentity {
  readonly provider: Provider;
  readonly pairwiseSalt: string;
  /** A request handler that always reaches the current provider (which answers its own errors). */
  readonly callback: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  /** Rebuilds the provider if another key was added, pruned or became the signing key; true when it did. */
  reload(): Promise<boolean>;
}

/** Called with what made the provider answer 500 (server_error) and the request id. */
export type OnServerError = (err: unknown, requestId: unknown) => void;

/** The audit trail the provider's token events go to, and where a row that could not be written is reported. */
export interface IdentityAudit {
  audit: AuditService;
  onError: (err: unknown) => void;
}

export async function createLiveIdentity(
  deps: IdentityDeps,
  onServerError?: OnServerError,
  trail?: IdentityAudit,
): Promise<LiveIdentity> {
  // The provider answers its own 500s; the cause would otherwise go unseen.
  const build = async () => {
    const built = await createIdentity(deps);
    built.provider.on('server_error', (ctx, err) => onServerError?.(err, requestIdOf(ctx.res)));
    if (trail) auditProviderEvents(built.provider, trail.audit, trail.onError);
    return built;
  };
  let identity: Identity = await build();
  let handler = identity.provider.callback();
  return {
    get provider() {
      return identity.provider;
    },
    pairwiseSalt: identity.pairwiseSalt,
    callback: (req, res) => handler(req, res),
    async reload() {
      const wanted = keySignature(signingOrder(await deps.stores.secrets.signingKeys()).map((k) => k.jwk));
      if (wanted === identity.keySignature) return false;
      identity = await build();
      handler = identity.provider.callback();
      return true;
    },
  };
}
