import type { Knex } from 'knex';
import type { Db } from './database.js';
import { dueCandidates, lockFree, type Busy, type ClaimCaps } from './due-deliveries.js';

export type { Busy, ClaimCaps };
import {
  DELIVERY_COLUMNS,
  toDelivery,
  toWebhook,
  type AttemptOutcome,
  type AttemptRow,
  type ClaimedDelivery,
  type DeliveryRow,
  numOrNull,
  strOrNull,
  type Raw,
} from './webhook-store.js';

/** The webhook delivery queue (filled by the database's trigger on `changes`) and its attempts. */
export class DeliveryStore {
  constructor(private readonly db: Db) {}

  /** A webhook's newest deliveries, newest first. */
  async deliveries(webhookId: number, limit: number): Promise<DeliveryRow[]> {
    const rows: Raw[] = await this.db('webhook_deliveries')
      .where({ webhook_id: webhookId })
      .orderBy('id', 'desc')
      .limit(limit)
      .select(DELIVERY_COLUMNS);
    return rows.map(toDelivery);
  }

  async find(id: number): Promise<DeliveryRow | undefined> {
    const row: Raw | undefined = await this.db('webhook_deliveries').where({ id }).first(DELIVERY_COLUMNS);
    return row ? toDelivery(row) : undefined;
  }

  /** A webhook's newest attempts, newest first. */
  async attempts(webhookId: number, limit: number): Promise<AttemptRow[]> {
    const rows: Raw[] = await this.db('webhook_attempts as a')
      .join('webhook_deliveries as d', 'd.id', 'a.delivery_id')
      .where('d.webhook_id', webhookId)
      .orderBy('a.id', 'desc')
      .limit(limit)
      .select('a.delivery_id', 'd.message_id', 'a.at', 'a.status', 'a.duration_ms', 'a.error');
    return rows.map((r) => ({
      deliveryId: Number(r.delivery_id),
      messageId: String(r.message_id),
      at: Number(r.at),
      status: numOrNull(r.status),
      durationMs: Number(r.duration_ms),
      error: strOrNull(r.error),
    }));
  }

  /** Queues a test delivery of a webhook, due at once. */
  async queuePing(webhookId: number, messageId: string, now = Date.now()): Promise<DeliveryRow> {
    const [row] = await this.db('webhook_deliveries')
      .insert({
        webhook_id: webhookId,
        kind: 'ping',
        change_position: null,
        message_id: messageId,
        state: 'pending',
        attempts: 0,
        next_attempt_at: now,
        created_at: now,
      })
      .returning(DELIVERY_COLUMNS);
    return toDelivery(row as Raw);
  }

  /** Due at once again, with the whole retry schedule ahead of it (its attempts so far are kept). */
  /** False when it is being sent (held by a lease): a second attempt must not start beside it. */
  async redeliver(deliveryId: number, now = Date.now()): Promise<boolean> {
    const n = await this.db('webhook_deliveries')
      .where({ id: deliveryId })
      .where((q) => void q.whereNull('lease_until').orWhere('lease_until', '<', now))
      .update({
        state: 'pending',
        attempts: 0,
        next_attempt_at: now,
        lease_until: null,
        finished_at: null,
      });
    return n > 0;
  }

  /**
   * Takes up to `limit` due deliveries of enabled webhooks until `now + leaseMs`, and of one webhook at most
   * `perWebhook` less what `busy` says this instance already sends to it. Each webhook's candidates are read
   * from its own index range (a backlog of a million costs no more than one of four). On PostgreSQL rows
   * another instance is taking are skipped (FOR UPDATE SKIP LOCKED) and the lease keeps them from the rest:
   * each attempt is made by one instance. A lease that ran out (its instance died) is taken again.
   */
  async claimDue(
    limit: number,
    caps: ClaimCaps,
    leaseMs: number,
    busy: Busy = { webhooks: new Map(), owners: new Map() },
    now = Date.now(),
  ): Promise<ClaimedDelivery[]> {
    if (limit <= 0) return [];
    // Rows of webhooks and owners this instance is busy with are passed over: at most that many more are needed.
    const max = limit + [...busy.owners.values()].reduce((a, b) => a + b, 0);
    const due = await dueCandidates(this.db, caps, max, now);
    if (!due.length) return [];
    return this.db.transaction(async (trx) => {
      const webhooks = new Map(busy.webhooks);
      const owners = new Map(busy.owners);
      const picked: number[] = [];
      for (const c of await lockFree(trx, due, now)) {
        if ((webhooks.get(c.webhookId) ?? 0) >= caps.perWebhook || (owners.get(c.ownerId) ?? 0) >= caps.perOwner)
          continue;
        webhooks.set(c.webhookId, (webhooks.get(c.webhookId) ?? 0) + 1);
        owners.set(c.ownerId, (owners.get(c.ownerId) ?? 0) + 1);
        picked.push(c.id);
        if (picked.length === limit) break;
      }
      if (!picked.length) return [];
      const leaseUntil = now + leaseMs;
      await trx('webhook_deliveries').whereIn('id', picked).update({ lease_until: leaseUntil });
      const rows: Raw[] = await trx('webhook_deliveries as d')
        .join('webhooks as w', 'w.id', 'd.webhook_id')
        .join('client_apps as a', 'a.id', 'w.app_id')
        .whereIn('d.id', picked)
        .orderBy([{ column: 'd.next_attempt_at' }, { column: 'd.id' }])
        .select(
          ...DELIVERY_COLUMNS.map((c) => `d.${c}`),
          'w.app_id',
          'w.url',
          'w.secret_sealed',
          'w.types',
          'w.event_slug',
          'w.enabled',
          'w.disabled_reason',
          'w.failing_since',
          { webhook_created_at: 'w.created_at' },
          'a.owner_id',
        );
      return rows.map((r) => ({
        ...toDelivery(r),
        leaseUntil,
        ownerId: Number(r.owner_id),
        webhook: toWebhook({ ...r, id: r.webhook_id, created_at: r.webhook_created_at }),
      }));
    });
  }

  /**
   * Writes how a claimed delivery's attempt ended, and what it means for its webhook (failing since when,
   * disabled), in one transaction. Only while the claim still holds it: false when its lease ran out and
   * another claim took it (that one's attempt is the one written).
   */
  async finish(claim: ClaimedDelivery, outcome: AttemptOutcome, now = Date.now()): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const done = outcome.state !== 'pending';
      const updated = await trx('webhook_deliveries')
        .where({ id: claim.id, state: 'pending', attempts: claim.attempts, lease_until: claim.leaseUntil })
        .update({
          state: outcome.state,
          attempts: outcome.attempt ? claim.attempts + 1 : claim.attempts,
          next_attempt_at: outcome.nextAttemptAt ?? claim.nextAttemptAt,
          lease_until: null,
          last_status: outcome.attempt?.status ?? null,
          last_error: outcome.attempt ? outcome.attempt.error : (outcome.note?.slice(0, 500) ?? null),
          finished_at: done ? now : null,
        });
      if (!updated) return false;
      if (!outcome.attempt) return true;
      await trx('webhook_attempts').insert({
        delivery_id: claim.id,
        at: outcome.attempt.at,
        status: outcome.attempt.status,
        duration_ms: outcome.attempt.durationMs,
        error: outcome.attempt.error,
      });
      await this.noteHealth(trx, claim.webhookId, outcome, now);
      return true;
    });
  }

  /** A success ends the webhook's run of failures; a failure starts one, and may end in disabling it. */
  private async noteHealth(trx: Knex.Transaction, webhookId: number, outcome: AttemptOutcome, now: number) {
    if (outcome.attempt?.error === null) {
      await trx('webhooks').where({ id: webhookId }).whereNotNull('failing_since').update({ failing_since: null });
      return;
    }
    await trx('webhooks').where({ id: webhookId }).whereNull('failing_since').update({ failing_since: now });
    if (!outcome.disable) return;
    await trx('webhooks')
      .where({ id: webhookId, enabled: true })
      .where('failing_since', '<=', now - outcome.disable.afterMs)
      .update({ enabled: false, disabled_reason: outcome.disable.reason.slice(0, 500), updated_at: now });
  }

  /** Lets claimed deliveries go before their lease runs out (a stopping instance), unattempted. */
  async release(claims: readonly ClaimedDelivery[]): Promise<void> {
    for (const claim of claims) {
      await this.db('webhook_deliveries')
        .where({ id: claim.id, lease_until: claim.leaseUntil, state: 'pending' })
        .update({ lease_until: null });
    }
  }

  /** Deliveries waiting to be sent by enabled webhooks, and since when the oldest has waited. */
  async pendingStats(): Promise<{ count: number; oldestCreatedAt: number | null }> {
    const row: Raw | undefined = await this.db('webhook_deliveries as d')
      .join('webhooks as w', 'w.id', 'd.webhook_id')
      .where({ 'd.state': 'pending', 'w.enabled': true })
      .first(this.db.raw('COUNT(*) AS n'), this.db.raw('MIN(d.created_at) AS oldest'));
    return { count: Number(row?.n ?? 0), oldestCreatedAt: numOrNull(row?.oldest) };
  }

  /** Drops deliveries that ended before `cutoff`, and their attempts; returns how many deliveries. */
  async pruneFinished(cutoff: number): Promise<number> {
    return this.db.transaction(async (trx) => {
      const old = trx('webhook_deliveries').whereNot({ state: 'pending' }).where('finished_at', '<', cutoff);
      await trx('webhook_attempts').whereIn('delivery_id', old.clone().select('id')).delete();
      return Number(await old.clone().delete());
    });
  }
}
