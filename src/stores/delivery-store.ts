import type { Knex } from 'knex';
import { isSqlite } from './dialect.js';
import type { Db } from './database.js';
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
  async redeliver(deliveryId: number, now = Date.now()): Promise<boolean> {
    const n = await this.db('webhook_deliveries').where({ id: deliveryId }).update({
      state: 'pending',
      attempts: 0,
      next_attempt_at: now,
      lease_until: null,
      finished_at: null,
    });
    return n > 0;
  }

  /**
   * Takes up to `limit` due deliveries of enabled webhooks until `now + leaseMs`, at most `perWebhook` of
   * one webhook held at once (its deliveries under a lease count). On PostgreSQL rows another instance is
   * taking are skipped (FOR UPDATE SKIP LOCKED) and the lease keeps them from the rest: each attempt is made
   * by one instance. A lease that ran out (its instance died) is taken again.
   */
  async claimDue(limit: number, perWebhook: number, leaseMs: number, now = Date.now()): Promise<ClaimedDelivery[]> {
    if (limit <= 0) return [];
    return this.db.transaction(async (trx) => {
      const free = `d.state = 'pending' AND d.next_attempt_at <= ? AND (d.lease_until IS NULL OR d.lease_until < ?)`;
      const lock = isSqlite(trx) ? '' : 'FOR UPDATE OF d SKIP LOCKED';
      // Each candidate set is computed once (MATERIALIZED): as a subquery of the locking SELECT, PostgreSQL
      // re-ran it for every pending row, so a claim grew with the square of the backlog.
      const ids = (
        await trx.raw(
          `WITH due AS MATERIALIZED (
             SELECT q.id, q.webhook_id,
               ROW_NUMBER() OVER (PARTITION BY q.webhook_id ORDER BY q.next_attempt_at, q.id) AS rn
             FROM webhook_deliveries q JOIN webhooks w ON w.id = q.webhook_id AND w.enabled
             WHERE q.state = 'pending' AND q.next_attempt_at <= ? AND (q.lease_until IS NULL OR q.lease_until < ?)
           ), held AS MATERIALIZED (
             SELECT webhook_id, COUNT(*) AS n FROM webhook_deliveries
             WHERE state = 'pending' AND lease_until >= ? GROUP BY webhook_id
           ), room AS MATERIALIZED (
             SELECT due.id FROM due LEFT JOIN held ON held.webhook_id = due.webhook_id
             WHERE due.rn + COALESCE(held.n, 0) <= ?
           )
           SELECT d.id FROM webhook_deliveries d JOIN room ON room.id = d.id
           WHERE ${free}
           ORDER BY d.next_attempt_at, d.id LIMIT ? ${lock}`,
          [now, now, now, perWebhook, now, now, limit],
        )
      ).valueOf() as Raw[] | { rows: Raw[] };
      const picked = (Array.isArray(ids) ? ids : ids.rows).map((r) => Number(r.id));
      if (!picked.length) return [];
      const leaseUntil = now + leaseMs;
      await trx('webhook_deliveries').whereIn('id', picked).update({ lease_until: leaseUntil });
      const rows: Raw[] = await trx('webhook_deliveries as d')
        .join('webhooks as w', 'w.id', 'd.webhook_id')
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
        );
      return rows.map((r) => ({
        ...toDelivery(r),
        leaseUntil,
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
