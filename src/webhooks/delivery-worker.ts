import type { Logger } from 'pino';
import type { AttemptReport, PreparedRequest, WebhookDelivery } from '../services/webhook-delivery.js';
import type { ClaimedDelivery } from '../stores/webhook-store.js';
import { WEBHOOK_TIMEOUT_MS } from './send-webhook.js';

/** Attempts one instance makes at once to one webhook: a slow receiver holds only these. */
export const PER_WEBHOOK = 4;
/** How often an idle worker looks for due deliveries (any instance, or the CLI, may have queued some). */
export const POLL_MS = 1000;
/** A claim outlives the longest attempt; after it, another instance takes the delivery (this one died). */
export const LEASE_MS = WEBHOOK_TIMEOUT_MS + 5000;
/** On stop, in-flight attempts get this long to finish; the rest are released for another instance. */
const STOP_GRACE_MS = 5000;

export type DeliveryOutcome = 'delivered' | 'retried' | 'failed' | 'skipped';

export interface WorkerOptions {
  deliveries: WebhookDelivery;
  /** One attempt (sendWebhook with the address policy). */
  send(request: PreparedRequest): Promise<AttemptReport>;
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
  const inFlight = new Map<number, { claim: ClaimedDelivery; done: Promise<void> }>();
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
      const claims = room > 0 ? await o.deliveries.claim(room, PER_WEBHOOK, LEASE_MS) : [];
      // Stopped while claiming: what was taken goes back unattempted, for this instance's next start or another.
      if (stopping) {
        await release(claims);
        return POLL_MS;
      }
      for (const claim of claims) {
        const done = run(claim).finally(() => {
          inFlight.delete(claim.id);
          // A slot is free: what waits behind it need not wait for the next poll.
          schedule(0);
        });
        inFlight.set(claim.id, { claim, done });
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

  async function run(claim: ClaimedDelivery): Promise<void> {
    const ids = { webhookId: claim.webhookId, deliveryId: claim.id, messageId: claim.messageId };
    try {
      const prepared = await o.deliveries.prepare(claim);
      if ('skip' in prepared) {
        await o.deliveries.skip(claim, prepared.skip);
        o.logger.info({ ...ids, reason: prepared.skip }, 'webhook delivery skipped');
        o.onOutcome?.('skipped');
        return;
      }
      const report = await o.send(prepared.send);
      const outcome = await o.deliveries.complete(claim, report, Date.now());
      const label: DeliveryOutcome =
        outcome.state === 'delivered' ? 'delivered' : outcome.state === 'pending' ? 'retried' : 'failed';
      o.onOutcome?.(label);
      if (label !== 'delivered') {
        const retryAt = outcome.nextAttemptAt ? new Date(outcome.nextAttemptAt).toISOString() : undefined;
        // The id and the error only: the payload carries personal data, the headers the signature.
        o.logger.warn(
          { ...ids, attempt: claim.attempts + 1, status: report.status, error: report.error, retryAt },
          label === 'failed' ? 'webhook delivery failed: no retries left' : 'webhook delivery attempt failed',
        );
      }
    } catch (err) {
      // The lease runs out and another claim takes it: nothing is lost.
      o.logger.error({ ...ids, err }, 'webhook delivery not completed');
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
    /** Takes nothing more; waits for attempts under way, then releases those that are still running. */
    async stop(): Promise<void> {
      stopping = true;
      clearTimeout(timer);
      // A claim under way first: it releases what it took rather than sending it.
      await ticking;
      const all = Promise.all([...inFlight.values()].map((f) => f.done));
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([all, new Promise((resolve) => (grace = setTimeout(resolve, STOP_GRACE_MS)))]);
      clearTimeout(grace);
      await release([...inFlight.values()].map((f) => f.claim));
    },
  };
}

export type DeliveryWorker = ReturnType<typeof startDeliveryWorker>;
