import { interactionPolicy, type KoaContextWithOIDC } from 'oidc-provider';

const { base, Check } = interactionPolicy;

/**
 * The browser's session names an account that may no longer sign in (deactivated, pending or gone):
 * the session ends, and the login prompt is asked for, so the same authorization request goes on at the
 * login page (or answers `login_required` to `prompt=none`) instead of failing on the missing account.
 */
const accountGone = new Check(
  'account_inactive',
  'the signed-in account can no longer sign in',
  'login_required',
  async (ctx: KoaContextWithOIDC) => {
    const { session, account } = ctx.oidc;
    if (!session?.accountId || account) return Check.NO_NEED_TO_PROMPT;
    // Forgotten first, so the interaction this request starts is not bound to the ended session.
    delete (session as { accountId?: string }).accountId;
    await session.destroy();
    return Check.REQUEST_PROMPT;
  },
);

/** oidc-provider's default prompts (login, then consent), the login prompt also asked for a stale session. */
export function createInteractionPolicy(): interactionPolicy.DefaultPolicy {
  const policy = base();
  policy.get('login')!.checks.add(accountGone, 0);
  return policy;
}
