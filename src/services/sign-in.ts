import { verifyPassword } from '../lib/secrets.js';
import type { LoginThrottle } from './login-throttle.js';
import type { Stores } from '../stores/stores.js';
import type { UserRow } from '../stores/types.js';
import { isActive } from './account-state.js';
import { userActor, type AuditService, type Origin } from './audit.js';

/** Why a sign-in was refused: fields missing, wrong credentials (or an inactive user), or too many attempts. */
export interface SignInRefusal {
  ok: false;
  reason: 'incomplete' | 'refused' | 'throttled';
  message: string;
  /** Seconds until another attempt is counted, when throttled. */
  retryAfter?: number;
}

export type SignInResult = { ok: true; user: UserRow } | SignInRefusal;

export const WRONG_CREDENTIALS = 'The email or password is incorrect.';

/** Longer passwords are refused unchecked (scrypt of megabytes is a denial of service). */
export const MAX_PASSWORD_LENGTH = 1024;

export const ACCOUNT_SESSION_TTL_MS = 8 * 60 * 60 * 1000;

/**
 * Email and password sign-in, shared by the login page and the account pages, and the account pages'
 * sessions a sign-in opens: both hold only while the user may sign in (is active).
 */
export class SignIn {
  constructor(
    private readonly stores: Stores,
    private readonly throttle: LoginThrottle,
    private readonly audit: AuditService,
  ) {}

  /**
   * Checks an email and password typed at `origin`, for the app `clientId` (none: the account pages). Each
   * attempt is in the audit trail: a success as a row, refusals folded (never the password typed).
   */
  async attempt(origin: Origin, email: unknown, password: unknown, clientId?: string): Promise<SignInResult> {
    const refused = async (action: 'sign_in.failed' | 'sign_in.throttled', subject?: string, userId?: number) => {
      const actor = { type: 'anonymous' as const, ...origin };
      await this.audit.recordRefusal({ action, actor, subject, userId, clientId, outcome: 'failure' });
    };
    if (typeof email !== 'string' || typeof password !== 'string' || !email.trim() || !password) {
      await refused('sign_in.failed');
      return { ok: false, reason: 'incomplete', message: 'Enter your email and your password.' };
    }
    if (email.length > 320 || password.length > MAX_PASSWORD_LENGTH) {
      // Not counted by the throttle: folded per network alone, so distinct huge names add no rows.
      await refused('sign_in.failed');
      return { ok: false, reason: 'refused', message: WRONG_CREDENTIALS };
    }
    const ip = origin.address ?? '';
    // Counted before the password is checked, so a burst of parallel attempts gets no more than the limit.
    const attempt = await this.throttle.reserve(ip, email);
    if (!attempt.allowed) {
      // Per network, not per name: once the throttle refuses, new names tried add no rows.
      await refused('sign_in.throttled');
      const minutes = Math.ceil(attempt.retryAfter / 60);
      return {
        ok: false,
        reason: 'throttled',
        retryAfter: attempt.retryAfter,
        message: `Too many failed sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
      };
    }
    const user = await this.stores.users.findByEmail(email.trim());
    // verifyPassword spends the same time for unknown users; inactive users get the same answer as a wrong password.
    const valid = await verifyPassword(password, user?.passwordHash ?? null);
    if (!valid || !user || !isActive(user)) {
      // The address typed only when it names an account: text that names none may be a password typed in the
      // wrong field, so it is never kept (those failures fold per network alone).
      await refused('sign_in.failed', user ? email.trim().toLowerCase() : undefined, user?.id);
      return { ok: false, reason: 'refused', message: WRONG_CREDENTIALS };
    }
    await attempt.succeeded();
    await this.audit.record({
      action: 'sign_in.succeeded',
      actor: userActor(user, origin),
      subject: user.uid,
      clientId,
    });
    return { ok: true, user };
  }

  /** Opens an account-pages session for a signed-in user; returns the token its cookie carries. */
  openSession(user: UserRow): Promise<string> {
    return this.stores.accountSessions.create(user.id, ACCOUNT_SESSION_TTL_MS);
  }

  /**
   * The user whose session this is, while they may sign in. A session unknown, expired or of a user who may
   * no longer sign in ends here (reactivation does not revive it).
   */
  async sessionUser(token: string): Promise<UserRow | undefined> {
    const userId = await this.stores.accountSessions.userIdFor(token);
    const user = userId === undefined ? undefined : await this.stores.users.findById(userId);
    if (user && isActive(user)) return user;
    await this.stores.accountSessions.delete(token);
    return undefined;
  }

  closeSession(token: string): Promise<void> {
    return this.stores.accountSessions.delete(token);
  }
}
