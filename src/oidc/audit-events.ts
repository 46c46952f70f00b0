import Provider, { type KoaContextWithOIDC } from 'oidc-provider';
import type { Actor, AuditAction, AuditService } from '../services/audit.js';

/** The app at the provider's endpoint, from the request's address. */
const appActor = (ctx: KoaContextWithOIDC): Actor => ({
  type: 'app',
  name: ctx.oidc.client?.clientId ?? null,
  address: ctx.ip,
  userAgent: ctx.get('user-agent') || undefined,
});

/**
 * Records the tokens the provider issues, refreshes and revokes, from its events: they fire once its own
 * write is done, so each row follows its write (a crash between the two loses the row, never the reverse).
 */
export function auditProviderEvents(provider: Provider, audit: AuditService, onError: (err: unknown) => void): void {
  // One row after the other, in the order the events fired: written concurrently, a revocation that
  // follows its token's issue at once could take the smaller id.
  let written = Promise.resolve();
  const record = (ctx: KoaContextWithOIDC, action: AuditAction, accountId: string | undefined) => {
    const entry = { action, actor: appActor(ctx), clientId: ctx.oidc.client?.clientId ?? null };
    written = written.then(() => audit.recordFor(accountId, entry)).catch(onError);
  };
  provider.on('grant.success', (ctx: KoaContextWithOIDC) => {
    const refreshed = ctx.oidc.params?.grant_type === 'refresh_token';
    const token = ctx.oidc.entities.AccessToken;
    record(ctx, refreshed ? 'token.refreshed' : 'token.issued', token?.accountId);
  });
  // A refresh token revoked (with its grant), a refresh token used twice, or a sign-out ending the grant.
  provider.on('grant.revoked', (ctx: KoaContextWithOIDC) => {
    const { RefreshToken, AccessToken } = ctx.oidc.entities;
    record(ctx, 'token.revoked', RefreshToken?.accountId ?? AccessToken?.accountId ?? ctx.oidc.session?.accountId);
  });
  // An access token revoked (its grant stays, its siblings end): the request is the revocation's, found through the provider.
  provider.on('access_token.destroyed', (token: { accountId?: string }) => {
    const ctx = Provider.ctx;
    if (ctx?.oidc?.route === 'revocation') record(ctx, 'token.revoked', token.accountId);
  });
  // An app's own token (client_credentials) revoked by the app: no user's account, the app's row.
  provider.on('client_credentials.destroyed', () => {
    const ctx = Provider.ctx;
    if (ctx?.oidc?.route === 'revocation') record(ctx, 'token.revoked', undefined);
  });
}
