import { userInfo } from 'node:os';
import { sha256 } from '../lib/secrets.js';
import { printable } from '../lib/text.js';
import type { AuditFilter, AuditRecord, StoredAudit } from '../stores/audit-store.js';
import type { Stores } from '../stores/stores.js';
import type { UserRow } from '../stores/types.js';
import { InvalidInput } from './errors.js';
import { addressKey } from './login-throttle.js';

/** Every action the trail records; `roster audit list --action` takes one of these. */
export const AUDIT_ACTIONS = [
  'sign_in.succeeded',
  'sign_in.failed',
  'sign_in.throttled',
  'consent.granted',
  'consent.denied',
  'token.issued',
  'token.refreshed',
  'token.revoked',
  'app.created',
  'app.updated',
  'app.deleted',
  'app.secret_rotated',
  'app.token_rotated',
  'webhook.created',
  'webhook.enabled',
  'webhook.deleted',
  'webhook.pinged',
  'webhook.redelivered',
  // Reserved for personal access tokens (not built yet).
  'personal_token.created',
  'personal_token.revoked',
  'password_reset.link_issued',
  'password_reset.completed',
  'user.created',
  'user.updated',
  'user.state_set',
  'user.password_set',
  'user.deleted',
  'event.created',
  'event.updated',
  'event.deleted',
  'registration.created',
  'registration.deleted',
  'data.imported',
  'data.seeded',
  'keys.rotated',
  'database.migrated',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Where a request came from. */
export interface Origin {
  address?: string;
  userAgent?: string;
}

/** Who acted: a signed-in user, an operator at the CLI, an app (at the token endpoint) or someone unknown. */
export interface Actor extends Origin {
  type: 'user' | 'operator' | 'app' | 'anonymous';
  name?: string | null;
  userId?: number | null;
}

export interface AuditEntry {
  action: AuditAction;
  actor: Actor;
  /** The account the row is about; the actor's own when left out. */
  userId?: number | null;
  subject?: string | null;
  clientId?: string | null;
  outcome?: 'success' | 'failure';
}

export const userActor = (user: UserRow, origin: Origin = {}): Actor => ({
  type: 'user',
  name: user.uid,
  userId: user.id,
  ...origin,
});

/** The operator running the CLI, by their login name on the machine. */
export function operatorActor(env: NodeJS.ProcessEnv = process.env): Actor {
  let name = env.USER ?? env.LOGNAME;
  try {
    name ??= userInfo().username;
  } catch {
    // No passwd entry for this uid (a container): the name stays unknown.
  }
  return { type: 'operator', name: `cli:${name ?? 'unknown'}` };
}

/** A value as the trail keeps it: controls written out visibly, never longer than the column. */
function bounded(value: string | null | undefined, max: number): string | null {
  if (value === null || value === undefined || value === '') return null;
  const shown = printable(value, max);
  return shown.length <= max ? shown : `${shown.slice(0, max - 1)}…`;
}

export function auditRecord(entry: AuditEntry, at: number): AuditRecord {
  const { actor } = entry;
  return {
    at,
    actorType: actor.type,
    actor: bounded(actor.name, 200),
    userId: entry.userId === undefined ? (actor.userId ?? null) : entry.userId,
    action: entry.action,
    subject: bounded(entry.subject, 200),
    clientId: bounded(entry.clientId, 200),
    address: bounded(actor.address, 64),
    userAgent: bounded(actor.userAgent, 200),
    outcome: entry.outcome ?? 'success',
    count: 1,
  };
}

/**
 * Runs `write` in a transaction with the row `entry` describes, when someone is named as acting: both commit
 * or neither. Without an actor (the CLI, whose command is already one transaction with its own row) it runs as is.
 */
export async function audited<T>(
  stores: Stores,
  by: Actor | undefined,
  write: (s: Stores) => Promise<T>,
  entry: (result: T) => Omit<AuditEntry, 'actor'>,
): Promise<T> {
  if (!by) return write(stores);
  return stores.transaction(async (s) => {
    const result = await write(s);
    await s.audit.add(auditRecord({ ...entry(result), actor: by }, Date.now()));
    return result;
  });
}

/** Failed sign-ins from one network within this window fold into one row per account name tried. */
export const FOLD_WINDOW_MS = 15 * 60 * 1000;

/** Rows pruned per statement: a large backlog never holds a long lock. */
const PRUNE_BATCH = 1000;

/** Rows read per page while listing: a listing holds one page in memory, whatever the trail's size. */
const LIST_PAGE = 500;

/** What `--since` takes: an ISO 8601 date, or a date and time. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/** The filter `roster audit list` takes, as typed. */
export interface AuditListInput {
  since?: string;
  user?: string;
  action?: string;
}

export class AuditService {
  constructor(
    private readonly stores: Stores,
    private readonly retentionDays: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records one row on its own (an event of the provider's, a sign-in): no write of ours to share it with. */
  async record(entry: AuditEntry): Promise<void> {
    await this.stores.audit.add(auditRecord(entry, this.now()));
  }

  /** Like record, the account named by uid (what the provider knows users by). */
  async recordFor(uid: string | undefined, entry: Omit<AuditEntry, 'userId'>): Promise<void> {
    const user = uid ? await this.stores.users.findByKey(uid) : undefined;
    await this.record({ ...entry, userId: user?.id ?? null, subject: entry.subject ?? uid });
  }

  /**
   * A refused sign-in, folded: one row per action, account name tried, network (an IPv6 /64) and window, with
   * a count. The throttle caps the names one network may try, so a flood adds rows no faster than it allows.
   */
  async recordRefusal(entry: AuditEntry): Promise<void> {
    const at = this.now();
    const window = Math.floor(at / FOLD_WINDOW_MS);
    const record = auditRecord(entry, at);
    const network = entry.actor.address ? addressKey(entry.actor.address) : '';
    const bucket = sha256([entry.action, record.subject?.toLowerCase() ?? '', network, window].join('\u0000'));
    await this.stores.audit.fold(record, bucket);
  }

  /** The newest rows about this account, newest first. */
  recent(userId: number, limit = 20): Promise<StoredAudit[]> {
    return this.stores.audit.recentFor(userId, limit);
  }

  /** The filter as typed, checked: a time that is not ISO 8601, an unknown user or action is an InvalidInput. */
  async filter(input: AuditListInput): Promise<AuditFilter> {
    const filter: AuditFilter = {};
    if (input.since !== undefined) {
      const since = ISO_TIME.test(input.since) ? Date.parse(input.since) : NaN;
      if (Number.isNaN(since)) throw new InvalidInput('must be an ISO 8601 time, e.g. 2026-01-31T09:00:00Z', 'since');
      filter.since = since;
    }
    if (input.user !== undefined) {
      const user = await this.stores.users.findByKey(input.user);
      if (!user) throw new InvalidInput(`names no user: ${printable(input.user, 80)}`, 'user');
      filter.userId = user.id;
    }
    if (input.action !== undefined) {
      if (!(AUDIT_ACTIONS as readonly string[]).includes(input.action)) {
        throw new InvalidInput(`must be one of ${AUDIT_ACTIONS.join(', ')}`, 'action');
      }
      filter.action = input.action;
    }
    return filter;
  }

  /** Every row that matches, oldest first, a page at a time (keyset by id), with the uid of its account. */
  async *list(filter: AuditFilter): AsyncGenerator<StoredAudit & { uid: string | null }> {
    let after = 0;
    for (;;) {
      const rows = await this.stores.audit.page(filter, after, LIST_PAGE);
      const ids = [...new Set(rows.flatMap((r) => (r.userId === null ? [] : [r.userId])))];
      const uids = new Map((await this.stores.users.findByIds(ids)).map((u) => [u.id, u.uid]));
      for (const row of rows) yield { ...row, uid: row.userId === null ? null : (uids.get(row.userId) ?? null) };
      if (rows.length < LIST_PAGE) return;
      after = rows[rows.length - 1]!.id;
    }
  }

  /** Drops rows older than AUDIT_RETENTION_DAYS, a batch per statement; returns how many. */
  async prune(now = this.now()): Promise<number> {
    const cutoff = now - this.retentionDays * 86_400_000;
    let total = 0;
    for (;;) {
      const dropped = await this.stores.audit.pruneBatch(cutoff, PRUNE_BATCH);
      total += dropped;
      if (dropped < PRUNE_BATCH) return total;
    }
  }
}
