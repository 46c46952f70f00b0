import type { Db } from './database.js';
import { isSqlite } from './dialect.js';

export type DeliveryState = 'pending' | 'delivered' | 'failed' | 'skipped';
export type DeliveryKind = 'change' | 'ping';

export interface WebhookRow {
  id: number;
  appId: number;
  url: string;
  secretSealed: string;
  /** The change types it is sent; null: every type. */
  types: string[] | null;
  eventSlug: string | null;
  enabled: boolean;
  disabledReason: string | null;
  failingSince: number | null;
  createdAt: number;
}

export interface NewWebhook {
  appId: number;
  url: string;
  secretSealed: string;
  types: readonly string[] | null;
  eventSlug: string | null;
}

export interface DeliveryRow {
  id: number;
  webhookId: number;
  kind: DeliveryKind;
  changePosition: number | null;
  messageId: string;
  state: DeliveryState;
  attempts: number;
  nextAttemptAt: number;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: number;
  finishedAt: number | null;
}

export interface AttemptRow {
  deliveryId: number;
  messageId: string;
  at: number;
  status: number | null;
  durationMs: number;
  error: string | null;
}

/** A delivery taken to be sent, with its webhook: held by this claim until `leaseUntil`. */
export interface ClaimedDelivery extends DeliveryRow {
  webhook: WebhookRow;
  leaseUntil: number;
}

/** How an attempt ended, as written: the delivery's next state and, when retried, when. */
export interface AttemptOutcome {
  state: DeliveryState;
  nextAttemptAt?: number;
  /** Absent for a delivery skipped without an attempt. */
  attempt?: { at: number; status: number | null; durationMs: number; error: string | null };
  /** Why a delivery ended without an attempt (skipped). */
  note?: string;
  /** Written to the webhook when this failure disables it (its failures began `disableAfterMs` ago or more). */
  disable?: { afterMs: number; reason: string };
}

export type Raw = Record<string, unknown>;
export const numOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));
export const strOrNull = (v: unknown) => (v === null || v === undefined ? null : String(v));

export const toWebhook = (r: Raw): WebhookRow => ({
  id: Number(r.id),
  appId: Number(r.app_id),
  url: String(r.url),
  secretSealed: String(r.secret_sealed),
  types: r.types ? (JSON.parse(String(r.types)) as string[]) : null,
  eventSlug: strOrNull(r.event_slug),
  enabled: Boolean(r.enabled),
  disabledReason: strOrNull(r.disabled_reason),
  failingSince: numOrNull(r.failing_since),
  createdAt: Number(r.created_at),
});

export const toDelivery = (r: Raw): DeliveryRow => ({
  id: Number(r.id),
  webhookId: Number(r.webhook_id),
  kind: r.kind as DeliveryKind,
  changePosition: numOrNull(r.change_position),
  messageId: String(r.message_id),
  state: r.state as DeliveryState,
  attempts: Number(r.attempts),
  nextAttemptAt: Number(r.next_attempt_at),
  lastStatus: numOrNull(r.last_status),
  lastError: strOrNull(r.last_error),
  createdAt: Number(r.created_at),
  finishedAt: numOrNull(r.finished_at),
});

export const DELIVERY_COLUMNS = [
  'id',
  'webhook_id',
  'kind',
  'change_position',
  'message_id',
  'state',
  'attempts',
  'next_attempt_at',
  'last_status',
  'last_error',
  'created_at',
  'finished_at',
];

/** Thrown to roll back an insert that took the app past its cap. */
class OverTheCap extends Error {}

/** Webhooks: their targets, filters, sealed secrets and health (their deliveries: delivery-store.ts). */
export class WebhookStore {
  constructor(private readonly db: Db) {}

  /** The new webhook, or undefined when the app already has `max`. */
  async create(w: NewWebhook, max: number, now = Date.now()): Promise<WebhookRow | undefined> {
    try {
      return await this.db.transaction(async (trx) => {
        // PostgreSQL: creations for one app take turns (its row locked), so each counts the others' rows; on
        // SQLite the insert takes the one write lock first.
        if (!isSqlite(trx)) await trx('client_apps').where({ id: w.appId }).forNoKeyUpdate().first('id');
        const [row] = await trx('webhooks')
          .insert({
            app_id: w.appId,
            url: w.url,
            secret_sealed: w.secretSealed,
            types: w.types ? JSON.stringify(w.types) : null,
            event_slug: w.eventSlug,
            created_at: now,
            updated_at: now,
          })
          .returning('*');
        // Counted after the insert, in its transaction: concurrent creations cannot pass the cap together.
        const count = await trx('webhooks').where({ app_id: w.appId }).count({ n: '*' }).first();
        if (Number(count?.n ?? 0) > max) throw new OverTheCap();
        return toWebhook(row as Raw);
      });
    } catch (err) {
      if (err instanceof OverTheCap) return undefined;
      throw err;
    }
  }

  async find(id: number): Promise<WebhookRow | undefined> {
    const row: Raw | undefined = await this.db('webhooks').where({ id }).first();
    return row ? toWebhook(row) : undefined;
  }

  /** The webhook when it belongs to an app of `ownerId`. */
  async findOwned(ownerId: number, id: number): Promise<WebhookRow | undefined> {
    const row: Raw | undefined = await this.db('webhooks')
      .join('client_apps', 'client_apps.id', 'webhooks.app_id')
      .where({ 'webhooks.id': id, 'client_apps.owner_id': ownerId })
      .first('webhooks.*');
    return row ? toWebhook(row) : undefined;
  }

  /** An app's webhooks, or every webhook (appId undefined), oldest first. */
  async list(appId?: number): Promise<WebhookRow[]> {
    const query = this.db('webhooks').orderBy('id');
    if (appId !== undefined) void query.where({ app_id: appId });
    const rows: Raw[] = await query;
    return rows.map(toWebhook);
  }

  /** The newest delivery of each webhook that has one. */
  async lastDeliveries(webhookIds: readonly number[]): Promise<Map<number, DeliveryRow>> {
    if (!webhookIds.length) return new Map();
    const newest = this.db('webhook_deliveries').whereIn('webhook_id', webhookIds).groupBy('webhook_id').max('id');
    const rows: Raw[] = await this.db('webhook_deliveries').whereIn('id', newest).select(DELIVERY_COLUMNS);
    return new Map(rows.map((r) => [Number(r.webhook_id), toDelivery(r)]));
  }

  async delete(id: number): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const deliveries = trx('webhook_deliveries').where({ webhook_id: id }).select('id');
      await trx('webhook_attempts').whereIn('delivery_id', deliveries).delete();
      await trx('webhook_deliveries').where({ webhook_id: id }).delete();
      return (await trx('webhooks').where({ id }).delete()) > 0;
    });
  }

  /** Enabled again, its failures forgotten; false when there is no such webhook. */
  async enable(id: number, now = Date.now()): Promise<boolean> {
    const n = await this.db('webhooks')
      .where({ id })
      .update({ enabled: true, disabled_reason: null, failing_since: null, updated_at: now });
    return n > 0;
  }
}
