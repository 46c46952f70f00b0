import type { Knex } from 'knex';
import { isSqlite } from './dialect.js';
import type { Db } from './database.js';
import type { Raw } from './webhook-store.js';

// Which deliveries are due, fairly shared between webhooks and their owners (DeliveryStore.claimDue).

/** A due delivery not held by a lease. */
export interface Candidate {
  id: number;
  webhookId: number;
  ownerId: number;
}

/** How many attempts one instance makes at once to one webhook, and to all the webhooks of one user's apps. */
export interface ClaimCaps {
  perWebhook: number;
  perOwner: number;
}

/** What this instance is sending now, by webhook and by the owner of the webhook's app. */
export interface Busy {
  webhooks: ReadonlyMap<number, number>;
  owners: ReadonlyMap<number, number>;
}

const FREE = `q.state = 'pending' AND q.next_attempt_at <= ? AND (q.lease_until IS NULL OR q.lease_until < ?)`;
const toCandidate = (r: Raw): Candidate => ({
  id: Number(r.id),
  webhookId: Number(r.webhook_id),
  ownerId: Number(r.owner_id),
});

/**
 * Due deliveries, soonest first, at most `max`: of each enabled webhook its first `perWebhook`, and of all
 * the webhooks of one user's apps the first `perOwner`, so no user's backlog or slow receivers crowd out the
 * others. Read without a transaction or a lock (an idle poll is this one read). Each webhook's are read from
 * its own index range, so the work grows with the number of webhooks, not with their backlogs.
 */
export async function dueCandidates(db: Db, caps: ClaimCaps, max: number, now: number): Promise<Candidate[]> {
  if (isSqlite(db)) {
    // SQLite has no LATERAL; a lookup per webhook is a few microseconds there.
    const webhooks: Raw[] = await db('webhooks as w')
      .join('client_apps as a', 'a.id', 'w.app_id')
      .where('w.enabled', true)
      .select('w.id', 'a.owner_id');
    const found: Raw[] = [];
    for (const w of webhooks) {
      const rows = await db.raw<Raw[]>(
        `SELECT q.id, q.webhook_id, ? AS owner_id, q.next_attempt_at FROM webhook_deliveries q
         WHERE q.webhook_id = ? AND ${FREE} ORDER BY q.next_attempt_at, q.id LIMIT ?`,
        [Number(w.owner_id), Number(w.id), now, now, caps.perWebhook],
      );
      found.push(...rows);
    }
    found.sort((a, b) => Number(a.next_attempt_at) - Number(b.next_attempt_at) || Number(a.id) - Number(b.id));
    const perOwner = new Map<number, number>();
    return found
      .map(toCandidate)
      .filter((c) => {
        const n = (perOwner.get(c.ownerId) ?? 0) + 1;
        perOwner.set(c.ownerId, n);
        return n <= caps.perOwner;
      })
      .slice(0, max);
  }
  const { rows } = await db.raw<{ rows: Raw[] }>(
    `SELECT id, webhook_id, owner_id FROM (
       SELECT q.id, q.webhook_id, a.owner_id, q.next_attempt_at,
         ROW_NUMBER() OVER (PARTITION BY a.owner_id ORDER BY q.next_attempt_at, q.id) AS nth
       FROM webhooks w JOIN client_apps a ON a.id = w.app_id CROSS JOIN LATERAL (
         SELECT q.id, q.webhook_id, q.next_attempt_at FROM webhook_deliveries q
         WHERE q.webhook_id = w.id AND ${FREE} ORDER BY q.next_attempt_at, q.id LIMIT ?
       ) q WHERE w.enabled
     ) due WHERE nth <= ? ORDER BY next_attempt_at, id LIMIT ?`,
    [now, now, caps.perWebhook, caps.perOwner, max],
  );
  return rows.map(toCandidate);
}

/**
 * Of the candidates, those still free, locked: on PostgreSQL rows another instance is locking are skipped
 * (FOR UPDATE SKIP LOCKED) and the conditions are checked again on the locked row (it may have been leased
 * since the read).
 */
export async function lockFree(trx: Knex.Transaction, due: Candidate[], now: number): Promise<Candidate[]> {
  const ids = due.map((c) => c.id);
  const byId = new Map(due.map((c) => [c.id, c]));
  const lock = isSqlite(trx) ? '' : 'FOR UPDATE SKIP LOCKED';
  const rows = await trx.raw<Raw[] | { rows: Raw[] }>(
    `SELECT q.id, q.webhook_id FROM webhook_deliveries q WHERE q.id IN (${ids.map(() => '?').join(',')}) AND ${FREE}
     ORDER BY q.next_attempt_at, q.id ${lock}`,
    [...ids, now, now],
  );
  return (Array.isArray(rows) ? rows : rows.rows).map((r) => byId.get(Number(r.id))!);
}
