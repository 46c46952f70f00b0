import { constantTimeEqual, randomToken, sha256 } from '../lib/secrets.js';
import type { Stores } from '../stores/stores.js';
import type { UserRow } from '../stores/types.js';
import { InvalidInput } from './errors.js';
import type { Mailer } from './mailer.js';
import type { ResetThrottle } from './reset-throttle.js';
import { MAX_PASSWORD_LENGTH } from './sign-in.js';
import { checkPassword, type UserService } from './user-service.js';
import { isActive } from './account-state.js';
import { audited, auditRecord, userActor, type Actor, type Origin } from './audit.js';

/** Thrown to undo a reset whose link another submission used first. */
class LinkUsed extends Error {}

export const RESET_TTL_MS = 30 * 60 * 1000;

/** `id.secret`: a 16-character public id to find the row, a 43-character secret compared by hash. */
const TOKEN = /^([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{43})$/;

export interface ResetLink {
  url: string;
  expiresAt: number;
}

/** What asking for a reset mail answers: the same whether or not the address has an account. */
export type ResetRequest =
  { status: 'accepted' } | { status: 'throttled'; retryAfter: number } | { status: 'unavailable' };

export interface ResetDelivery {
  mailer: Mailer;
  throttle: ResetThrottle;
  /** What the mail calls the service (SERVICE_NAME). */
  serviceName: string;
  /** Sending runs after the answer: its failure is reported here, never to the requester. */
  onError(err: unknown): void;
}

/** One-time password reset links: issued by mail or by an operator, single use, 30 minutes. */
export class PasswordResetService {
  constructor(
    private readonly stores: Stores,
    private readonly users: UserService,
    /** The page a link leads to, for its token (the page router knows where it lives). */
    private readonly linkFor: (token: string) => string,
    /** Absent: no SMTP here, links come only from `roster user reset-link`. */
    private readonly delivery?: ResetDelivery,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether a reset can be asked for by email here (SMTP_URL is set). */
  get byEmail(): boolean {
    return this.delivery !== undefined;
  }

  /** A new link for an active user with an email address (the address is what they sign in with). */
  async issueLink(user: UserRow, by?: Actor): Promise<ResetLink> {
    if (!isActive(user)) throw new InvalidInput(`user ${user.uid} is ${user.activationState}`);
    if (!user.email) throw new InvalidInput(`user ${user.uid} has no email address to sign in with`);
    const id = randomToken('', 12);
    const secret = randomToken('', 32);
    const now = this.now();
    const expiresAt = now + RESET_TTL_MS;
    const row = { id, secretHash: sha256(secret), userId: user.id, expiresAt };
    const entry = { action: 'password_reset.link_issued' as const, userId: user.id, subject: user.uid };
    await audited(
      this.stores,
      by,
      (s) => s.passwordResets.create(row, now),
      () => entry,
    );
    return { url: this.linkFor(`${id}.${secret}`), expiresAt };
  }

  /**
   * Counts the request, then answers at once; the lookup and the mail happen afterwards, so neither the
   * answer nor its timing says whether the address has an account.
   */
  async request(origin: Origin, email: string): Promise<ResetRequest> {
    const delivery = this.delivery;
    if (!delivery) return { status: 'unavailable' };
    const address = email.trim();
    const retryAfter = await delivery.throttle.take(origin.address ?? '', address);
    if (retryAfter !== undefined) return { status: 'throttled', retryAfter };
    this.send(delivery, address, origin).catch((err: unknown) => delivery.onError(err));
    return { status: 'accepted' };
  }

  private async send({ mailer, serviceName }: ResetDelivery, email: string, origin: Origin): Promise<void> {
    const user = await this.stores.users.findByEmail(email);
    if (!user?.email || !isActive(user)) return;
    const link = await this.issueLink(user, { type: 'anonymous', ...origin });
    await mailer.send({
      to: user.email,
      subject: `Reset your ${serviceName} password`,
      text:
        `Someone (hopefully you) asked to reset the password of your ${serviceName} account ${user.email}.\n\n` +
        `To choose a new password, open this link within 30 minutes. It works once:\n\n${link.url}\n\n` +
        'If you did not ask for this, ignore this mail: your password stays as it is.\n',
    });
  }

  /** The user a link may still reset the password of: unknown, malformed, used, expired or inactive is none. */
  async check(token: unknown): Promise<UserRow | undefined> {
    const match = typeof token === 'string' ? TOKEN.exec(token) : null;
    if (!match) return undefined;
    const row = await this.stores.passwordResets.find(match[1]!);
    if (!row || !constantTimeEqual(sha256(match[2]!), row.secretHash)) return undefined;
    if (row.usedAt !== null || row.expiresAt <= this.now()) return undefined;
    const user = await this.stores.users.findById(row.userId);
    return isActive(user) ? user : undefined;
  }

  /**
   * Sets the new password (entered twice) and uses the link up; every session and refresh token of the user
   * ends. Undefined when the link no longer works; InvalidInput for a password the rule refuses.
   */
  async complete(
    token: unknown,
    password: string,
    confirmation: string,
    origin: Origin = {},
  ): Promise<UserRow | undefined> {
    const user = await this.check(token);
    if (!user) return undefined;
    checkPassword(password);
    // Sign-in refuses longer ones: such a password could never be used.
    if (password.length > MAX_PASSWORD_LENGTH) {
      throw new InvalidInput(`must be at most ${MAX_PASSWORD_LENGTH} characters`, 'password');
    }
    if (password !== confirmation) throw new InvalidInput('the two passwords differ', 'confirmation');
    const linkId = TOKEN.exec(token as string)![1]!;
    const by = userActor(user, origin);
    try {
      // The link used up, the password set and the audit row: one transaction.
      await this.users.resetPassword(user.uid, password, async (s) => {
        // One atomic update: of two submissions racing, one wins and the other finds the link used.
        if (!(await s.passwordResets.consume(linkId, this.now()))) throw new LinkUsed();
        await s.audit.add(
          auditRecord({ action: 'password_reset.completed', actor: by, subject: user.uid }, this.now()),
        );
      });
    } catch (err) {
      if (err instanceof LinkUsed) return undefined;
      throw err;
    }
    return user;
  }
}
