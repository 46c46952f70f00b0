import type { Span } from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { AttemptReport, PreparedRequest, WebhookDelivery } from '../services/webhook-delivery.js';
import type { ClaimedDelivery } from '../stores/webhook-store.js';
import { WEBHOOK_TIMEOUT_MS } from './send-webhook.js';
import { inDeliverySpan, recordOutcome } from './webhook-spans.js';
/** Less than this left of a claim's lease and the attempt is not begun: it could outlive the lease. */
const LEASE_MARGIN_MS = 1000;

/** Attempts one instance makes at once to one webhook: a slow receiver holds only these. */
export const PER_WEBHOOK = 4;
/** The share of WEBHOOK_CONCURRENCY the webhooks of one user's apps may hold at once (at least PER_WEBHOOK). */
const OWNER_SHARE = 4;
/** How often an idle worker looks for due deliveries (any instance, or the CLI, may have queued some). */
export const POLL_MS = 1000;
/** A claim outlives the longest attempt; after it, another instance takes the delivery (this one died). */
export const LEASE_MS = WEBHOOK_TIMEOUT_MS + 5000;
/** On stop, in-flight attempts get this long to finish; the rest are released for another instance. */
const STOP_GRACE_MS = 5000;

export type DeliveryOutcome = 'delivered' | 'retried' | 'failed' | 'skipped';

export interface WorkerOptions {
  deliveries: WebhookDelivery;
  /** One attempt (sendWebhook with the address policy), within `timeoutMs`, ended early by `signal`. */
  send(request: PreparedRequest, limits: { timeoutMs: number; signal: AbortSignal }): Promise<AttemptReport>;
  /** WEBHOOK_CONCURRENCY: attempts at once over every webhook. */
  concurrency: number;
  logger: Logger;
  onOutcome?(outcome: DeliveryOutcome): void;
}

/**
 * Sends due webhook deliveries: claims what it has room for (the database decides which instance takes
 * which), sends each, writes how it went. A slow or dead receiver holds at most PER_WEBHOOK slots.
 */
export function startDeliveryWorker(o: WorkerOptions) {
  const inFlight = new Map<number, { claim: ClaimedDelivery; done: Promise<void>; cancel: AbortController }>();
  const caps = { perWebhook: PER_WEBHOOK, perOwner: Math.max(PER_WEBHOOK, Math.ceil(o.concurrency / OWNER_SHARE)) };
  let timer: NodeJS.Timeout | undefined;
  /** When the timer fires: a later look never replaces a sooner one. */
  let timerAt = Infinity;
  let stopping = false;
  /** The claim under way, if any: stop() waits for it. */
  let ticking: Promise<void> | undefined;
  /** A look was asked for while a claim was under way (a slot freed, a nudge): look again once it ends. */
  let lookAgain = false;

  const schedule = (ms: number) => {
    if (stopping) return;
    const at = Date.now() + ms;
    if (timer && timerAt <= at) return;
    clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(() => {
      timer = undefined;
      timerAt = Infinity;
      void tick();
    }, ms);
    timer.unref();
  };

  function tick(): Promise<void> {
    if (stopping) return Promise.resolve();
    if (ticking) {
      lookAgain = true;
      return ticking;
    }
    lookAgain = false;
    ticking = claimAndSend().then((again) => {
      ticking = undefined;
      schedule(lookAgain ? 0 : again);
    });
    return ticking;
  }

  /** Claims what there is room for and starts sending it; returns when to look again. */
  async function claimAndSend(): Promise<number> {
    try {
      const room = o.concurrency - inFlight.size;
      const webhooks = new Map<number, number>();
      const owners = new Map<number, number>();
      for (const { claim } of inFlight.values()) {
        webhooks.set(claim.webhookId, (webhooks.get(claim.webhookId) ?? 0) + 1);
        owners.set(claim.ownerId, (owners.get(claim.ownerId) ?? 0) + 1);
      }
      const claims = room > 0 ? await o.deliveries.claim(room, caps, LEASE_MS, { webhooks, owners }) : [];
      // Stopped while claiming: what was taken goes back unattempted, for this instance's next start or another.
      if (stopping) {
        await release(claims);
        return POLL_MS;
      }
      for (const claim of claims) {
        const cancel = new AbortController();
        const done = run(claim, cancel.signal).finally(() => {
          inFlight.delete(claim.id);
          // A slot is free: what waits behind it need not wait for the next poll.
          schedule(0);
        });
        inFlight.set(claim.id, { claim, done, cancel });
      }
      return claims.length && claims.length === room ? 0 : POLL_MS;
    } catch (err) {
      o.logger.warn({ err }, 'webhook deliveries not claimed');
      return POLL_MS;
    }
  }

  async function release(claims: readonly ClaimedDelivery[]): Promise<void> {
    if (!claims.length) return;
    await o.deliveries.release(claims).catch((err: unknown) => {
      o.logger.warn({ err }, 'webhook deliveries not released; their leases run out instead');
    });
  }

  async function run(claim: ClaimedDelivery, cancelled: AbortSignal): Promise<void> {
    const ids = { webhookId: claim.webhookId, deliveryId: claim.id, messageId: claim.messageId };
    try {
      await inDeliverySpan({ ...ids, attempt: claim.attempts + 1 }, (span) => attempt(claim, ids, cancelled, span));
    } catch (err) {
      // The lease runs out and another claim takes it: nothing is lost.
      o.logger.error({ ...ids, err }, 'webhook delivery not completed');
    }
  }

  /** One attempt, its outcome written and put on its span. */
  async function attempt(claim: ClaimedDelivery, ids: object, cancelled: AbortSignal, span: Span): Promise<void> {
    const released = async () => {
      recordOutcome(span, 'released');
      await release([claim]);
    };
    const prepared = await o.deliveries.prepare(claim);
    if ('skip' in prepared) {
      await o.deliveries.skip(claim, prepared.skip);
      o.logger.info({ ...ids, reason: prepared.skip }, 'webhook delivery skipped');
      recordOutcome(span, 'skipped');
      o.onOutcome?.('skipped');
      return;
    }
    // The attempt ends before the lease does: no other instance can take the delivery while it runs.
    const timeoutMs = Math.min(WEBHOOK_TIMEOUT_MS, claim.leaseUntil - Date.now() - LEASE_MARGIN_MS);
    if (timeoutMs < LEASE_MARGIN_MS || cancelled.aborted) return released();
    const report =
      'fail' in prepared
        ? { durationMs: 0, error: prepared.fail }
        : await o.send(prepared.send, { timeoutMs, signal: cancelled });
    // Ended by a stop: not the receiver's failure. Released, it is sent again by whoever is still running.
    if (cancelled.aborted) return released();
    const outcome = await o.deliveries.complete(claim, report, Date.now());
    const label: DeliveryOutcome =
      outcome.state === 'delivered' ? 'delivered' : outcome.state === 'pending' ? 'retried' : 'failed';
    recordOutcome(span, label);
    o.onOutcome?.(label);
    if (label !== 'delivered') {
      const retryAt = outcome.nextAttemptAt ? new Date(outcome.nextAttemptAt).toISOString() : undefined;
      // The id and the error only: the payload carries personal data, the headers the signature.
      o.logger.warn(
        { ...ids, attempt: claim.attempts + 1, status: report.status, error: report.error, retryAt },
        label === 'failed' ? 'webhook delivery failed: no retries left' : 'webhook delivery attempt failed',
      );
    }
  }

  schedule(0);
  return {
    /** Looks for due deliveries now (a ping or redelivery was just queued here). */
    nudge(): void {
      schedule(0);
    },
    /** How many attempts are under way here. */
    get inFlight(): number {
      return inFlight.size;
    },
    /**
     * Takes nothing more; waits for attempts under way, then ends those still running and releases them
     * (ended first, so no other instance's attempt can overlap theirs).
     */
    async stop(): Promise<void> {
      stopping = true;
      clearTimeout(timer);
      // A claim under way first: it releases what it took rather than sending it.
      await ticking;
      const all = () => Promise.all([...inFlight.values()].map((f) => f.done));
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([all(), new Promise((resolve) => (grace = setTimeout(resolve, STOP_GRACE_MS)))]);
      clearTimeout(grace);
      for (const f of inFlight.values()) f.cancel.abort();
      await all();
    },
  };
}

export type DeliveryWorker = ReturnType<typeof startDeliveryWorker>;
