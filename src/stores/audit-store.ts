import type { Db } from './database.js';

/** One row of the audit trail, as written and as read back. */
export interface AuditRecord {
  at: number;
  actorType: string;
  actor: string | null;
  userId: number | null;
  action: string;
  subject: string | null;
  clientId: string | null;
  address: string | null;
  userAgent: string | null;
  outcome: string;
  /** How many attempts a folded row stands for; 1 otherwise. */
  count: number;
}

export type StoredAudit = AuditRecord & { id: number };

export interface AuditFilter {
  /** Only rows at or after this time (ms). */
  since?: number;
  userId?: number;
  action?: string;
}

const str = (v: unknown) => (v === null || v === undefined ? null : String(v));

function toRecord(r: Record<string, unknown>): StoredAudit {
  return {
    id: Number(r.id),
    at: Number(r.at),
    actorType: String(r.actor_type),
    actor: str(r.actor),
    userId: r.user_id === null || r.user_id === undefined ? null : Number(r.user_id),
    action: String(r.action),
    subject: str(r.subject),
    clientId: str(r.client_id),
    address: str(r.address),
    userAgent: str(r.user_agent),
    outcome: String(r.outcome),
    count: Number(r.count),
  };
}

const columns = (r: AuditRecord) => ({
  at: r.at,
  actor_type: r.actorType,
  actor: r.actor,
  user_id: r.userId,
  action: r.action,
  subject: r.subject,
  client_id: r.clientId,
  address: r.address,
  user_agent: r.userAgent,
  outcome: r.outcome,
  count: r.count,
});

/** The audit_log table: appended to in the writer's transaction, read by the CLI and the account page, pruned. */
export class AuditStore {
  constructor(private readonly db: Db) {}

  /** Appends a row; returns its id. */
  async add(record: AuditRecord): Promise<number> {
    const [row] = await this.db('audit_log').insert(columns(record)).returning('id');
    return Number((row as { id: unknown }).id);
  }

  /** Rewrites a row (what a command did, once it has done it). */
  async replace(id: number, record: AuditRecord): Promise<void> {
    await this.db('audit_log').where({ id }).update(columns(record));
  }

  /** Adds one to the row of `bucket` (its latest time and user agent kept), or inserts it: one row per bucket. */
  async fold(record: AuditRecord, bucket: string): Promise<void> {
    await this.db('audit_log')
      .insert({ ...columns(record), bucket })
      .onConflict('bucket')
      .merge({ count: this.db.raw('audit_log.count + 1'), at: record.at, user_agent: record.userAgent });
  }

  /** Up to `limit` rows after id `afterId` that match, in id order (a keyset: the next page starts at the last id). */
  async page(filter: AuditFilter, afterId: number, limit: number): Promise<StoredAudit[]> {
    const query = this.db('audit_log').where('id', '>', afterId).orderBy('id').limit(limit);
    if (filter.since !== undefined) void query.where('at', '>=', filter.since);
    if (filter.userId !== undefined) void query.where('user_id', filter.userId);
    if (filter.action !== undefined) void query.where('action', filter.action);
    return ((await query) as Record<string, unknown>[]).map(toRecord);
  }

  /** The newest rows about one account, newest first. */
  async recentFor(userId: number, limit: number): Promise<StoredAudit[]> {
    const rows = (await this.db('audit_log')
      .where('user_id', userId)
      .orderBy([
        { column: 'at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(limit)) as Record<string, unknown>[];
    return rows.map(toRecord);
  }

  /** Deletes up to `batch` rows older than `cutoff` (ms), oldest first; returns how many. */
  async pruneBatch(cutoff: number, batch: number): Promise<number> {
    const oldest = this.db('audit_log').where('at', '<', cutoff).orderBy('id').limit(batch).select('id');
    return this.db('audit_log').whereIn('id', oldest).delete();
  }
}
