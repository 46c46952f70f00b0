import { durationMs } from '../lib/durations.js';
import { PERSONAL_TOKEN_PREFIX, isRowId } from '../lib/ids.js';
import { isScope, SUPPORTED_SCOPES } from '../lib/scopes.js';
import { randomToken, sha256 } from '../lib/secrets.js';
import type { PersonalTokenRow } from '../stores/personal-token-store.js';
import type { Stores } from '../stores/stores.js';
import type { UserRow } from '../stores/types.js';
import { isActive } from './account-state.js';
import { audited, type Actor } from './audit.js';
import { Conflict, InvalidInput, NotFound } from './errors.js';
import type { Mailer } from './mailer.js';
import * as v from './validation.js';

const DAY = 86_400;
/** A new token's life unless one is chosen, and the longest one may have, in seconds. */
export const DEFAULT_PERSONAL_TOKEN_TTL = 30 * DAY;
export const MAX_PERSONAL_TOKEN_TTL = 365 * DAY;
/** The shortest: long enough to paste it somewhere and use it once. */
export const MIN_PERSONAL_TOKEN_TTL = 60;
/** Tokens one user may hold, expired ones included until deleted: enough for every tool, not a flood. */
export const MAX_PERSONAL_TOKENS = 25;

/** `30d`, `12h`, `90m`, `3600s` → seconds; InvalidInput for anything else or out of 1 minute to 365 days. */
export function parseDuration(value: string, field = 'expires_in'): number {
  const ms = durationMs(value);
  if (ms === undefined) throw new InvalidInput('must be a whole number and a unit: s, m, h or d (30d, 12h)', field);
  const seconds = ms / 1000;
  if (seconds < MIN_PERSONAL_TOKEN_TTL || seconds > MAX_PERSONAL_TOKEN_TTL) {
    throw new InvalidInput('must be from 1 minute to 365 days', field);
  }
  return seconds;
}

/** The scopes asked for, each one the provider supports, at least one, in the order of SUPPORTED_SCOPES. */
function scopesOf(list: readonly string[]): string[] {
  const asked = new Set(list.map((s) => s.trim()).filter(Boolean));
  const unknown = [...asked].find((s) => !isScope(s));
  if (unknown !== undefined) {
    throw new InvalidInput(
      `has an unknown scope ${JSON.stringify(unknown.slice(0, 40))}: use ${SUPPORTED_SCOPES.join(', ')}`,
      'scope',
    );
  }
  if (asked.size === 0) throw new InvalidInput('needs at least one scope', 'scope');
  return SUPPORTED_SCOPES.filter((s) => asked.has(s));
}

export interface NewPersonalTokenInput {
  name: string;
  scopes: readonly string[];
  /** Seconds; DEFAULT_PERSONAL_TOKEN_TTL when left out. */
  expiresIn?: number;
}

export interface CreatedPersonalToken {
  /** The token itself: in this answer and nowhere else (only its hash is kept). */
  token: string;
  row: PersonalTokenRow;
}

export interface PersonalTokenMail {
  mailer: Mailer;
  serviceName: string;
  /** Where the user sees and revokes their tokens. */
  tokensUrl: string;
  onError(err: unknown): void;
}

/**
 * Personal access tokens: a user's own bearer tokens, acting as that user (no app) with the scopes chosen,
 * for at most a year. Created at the account pages or the CLI, revoked there; the value is shown once.
 */
export class PersonalTokenService {
  constructor(
    private readonly stores: Stores,
    private readonly mail?: PersonalTokenMail,
  ) {}

  /** A new token for an active user; Conflict past MAX_PERSONAL_TOKENS (creations racing included). */
  async create(
    user: UserRow,
    input: NewPersonalTokenInput,
    by?: Actor,
    now = Date.now(),
  ): Promise<CreatedPersonalToken> {
    if (!isActive(user)) throw new Conflict('only an active user may hold personal access tokens');
    const name = v.text(input.name, 'name', 100);
    const scopes = scopesOf(input.scopes);
    const expiresIn = input.expiresIn ?? DEFAULT_PERSONAL_TOKEN_TTL;
    if (!Number.isInteger(expiresIn) || expiresIn < MIN_PERSONAL_TOKEN_TTL || expiresIn > MAX_PERSONAL_TOKEN_TTL) {
      throw new InvalidInput('must be from 1 minute to 365 days', 'expires_in');
    }
    const token = randomToken(PERSONAL_TOKEN_PREFIX);
    const row = await audited(
      this.stores,
      by,
      async (s) => {
        const made = await s.personalTokens.createWithin(
          MAX_PERSONAL_TOKENS,
          { userId: user.id, name, tokenHash: sha256(token), scopes, expiresAt: now + expiresIn * 1000 },
          now,
        );
        if (!made) {
          throw new Conflict(`a user may hold at most ${MAX_PERSONAL_TOKENS} personal access tokens; delete one first`);
        }
        return made;
      },
      (made) => ({ action: 'personal_token.created', userId: user.id, subject: made.name }),
    );
    this.tell(user, row);
    return { token, row };
  }

  list(userId: number): Promise<PersonalTokenRow[]> {
    return this.stores.personalTokens.listByUser(userId);
  }

  /** Revokes the token: only `userId`'s (any user's when undefined, for an operator). NotFound otherwise. */
  async revoke(id: number, userId: number | undefined, by?: Actor): Promise<PersonalTokenRow> {
    if (!isRowId(id)) throw new NotFound('no such personal access token');
    const row = await audited(
      this.stores,
      by,
      async (s) => {
        const gone = await s.personalTokens.delete(id, userId);
        if (!gone) throw new NotFound('no such personal access token');
        return gone;
      },
      (gone) => ({ action: 'personal_token.revoked', userId: gone.userId, subject: gone.name }),
    );
    return row;
  }

  /** Tells the user by mail that a token was made on their account (when SMTP is set and they have an address). */
  private tell(user: UserRow, row: PersonalTokenRow): void {
    const { mail } = this;
    if (!mail || !user.email) return;
    const expires = new Date(row.expiresAt).toISOString().slice(0, 10);
    mail.mailer
      .send({
        to: user.email,
        subject: `A personal access token was created on your ${mail.serviceName} account`,
        text:
          `A personal access token named ${JSON.stringify(row.name)} was just created on your ${mail.serviceName} ` +
          `account ${user.email}, with the scopes ${row.scopes.join(' ')}, until ${expires}.\n\n` +
          `If that was not you, revoke it at once and change your password:\n\n${mail.tokensUrl}\n`,
      })
      .catch((err: unknown) => mail.onError(err));
  }
}

/** How often the last uses noted in memory are written: "last used" is right to within this. */
export const LAST_USE_FLUSH_MS = 30_000;

/**
 * Last uses of personal access tokens: noted in memory per request, written every LAST_USE_FLUSH_MS in one
 * statement for all the tokens used meanwhile (a busy token costs no write per request), and at close.
 */
export class PersonalTokenUse {
  private used = new Set<number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly stores: Stores,
    private readonly onError: (err: unknown) => void,
    private readonly flushMs = LAST_USE_FLUSH_MS,
  ) {}

  note(id: number): void {
    this.used.add(id);
    this.timer ??= setTimeout(() => void this.flush(), this.flushMs).unref();
  }

  /** Writes what was noted (the moment of writing is the last use); never throws. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const ids = [...this.used];
    this.used.clear();
    await this.stores.personalTokens.markUsed(ids, Date.now()).catch(this.onError);
  }
}
