import { encodeChangeCursor, globalId } from '../lib/ids.js';
import { open, SealedSecretError } from '../lib/sealed-secret.js';
import { webhookHeaders } from '../lib/webhook-signature.js';
import type { ChangeRow } from '../stores/change-store.js';
import type { Stores } from '../stores/stores.js';
import type { AttemptOutcome, ClaimedDelivery } from '../stores/webhook-store.js';
import type { Busy, ClaimCaps } from '../stores/delivery-store.js';
import { createAccess } from './access.js';
import { visible } from './change-feed.js';
import { appViewer } from './viewer.js';

/** What the delivery rules depend on in this deployment. */
export interface DeliveryRules {
  /** WEBHOOK_RETRY_SCHEDULE: the delay before each retry, in milliseconds. */
  retrySchedule: readonly number[];
  /** WEBHOOK_DISABLE_AFTER: a webhook that only failed this long is disabled. */
  disableAfterMs: number;
}

/** One attempt's request, ready to send. */
export interface PreparedRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** An attempt as it ended (the edge that sent it reports it). */
export interface AttemptReport {
  status?: number;
  durationMs: number;
  /** Absent exactly when the receiver answered 2xx in time. */
  error?: string;
}

/** An attempt to make, a delivery not to send (the app may not see it), or an attempt that failed before it began. */
export type Preparation = { send: PreparedRequest } | { skip: string } | { fail: string };

/** The body of a delivery (SPEC's format): what the app's own token may see now, never an email address. */
export interface WebhookPayload {
  type: string;
  timestamp: string;
  data: {
    cursor?: string;
    event?: { slug: string; name: string };
    registration?: { id: string } | null;
    registrant?: { id: string; name: string; activationState: string } | null;
    webhook?: { id: number };
  };
}

const SUSPENDED = 'the app is suspended (its owner is not active)';

const ms = (n: number): string =>
  n % 86_400_000 === 0
    ? `${n / 86_400_000} d`
    : n % 3_600_000 === 0
      ? `${n / 3_600_000} h`
      : n < 60_000
        ? `${Math.round(n / 1000)} s`
        : `${Math.round(n / 60_000)} min`;

/** The deliveries' side of webhooks: which are due, what each says, and what an attempt's end means. */
export class WebhookDelivery {
  constructor(
    private readonly stores: Stores,
    private readonly rules: DeliveryRules,
    private readonly secretsKey: () => Promise<Buffer>,
  ) {}

  claim(limit: number, caps: ClaimCaps, leaseMs: number, busy?: Busy): Promise<ClaimedDelivery[]> {
    return this.stores.deliveries.claimDue(limit, caps, leaseMs, busy);
  }

  release(claims: readonly ClaimedDelivery[]): Promise<void> {
    return this.stores.deliveries.release(claims);
  }

  /** The signed request of this attempt, or why it is not sent (the app may not see the change now). */
  async prepare(claim: ClaimedDelivery, now = new Date()): Promise<Preparation> {
    const payload = claim.kind === 'ping' ? await this.pingPayload(claim, now) : await this.changePayload(claim);
    if ('skip' in payload) return payload;
    let secret: string;
    try {
      secret = open(claim.webhook.secretSealed, await this.secretsKey());
    } catch (err) {
      // Retried and counted like any failure: the key may come back (an instance started with another one).
      if (err instanceof SealedSecretError) {
        return { fail: 'the signing secret does not open with this instance’s WEBHOOK_SECRETS_KEY' };
      }
      throw err;
    }
    const body = JSON.stringify(payload);
    return {
      send: { url: claim.webhook.url, headers: { ...webhookHeaders(secret, claim.messageId, now, body) }, body },
    };
  }

  private async pingPayload(claim: ClaimedDelivery, now: Date): Promise<WebhookPayload | { skip: string }> {
    if (!(await this.stores.apps.findActive(claim.webhook.appId))) return { skip: SUSPENDED };
    return { type: 'webhook.ping', timestamp: now.toISOString(), data: { webhook: { id: claim.webhookId } } };
  }

  private async changePayload(claim: ClaimedDelivery): Promise<WebhookPayload | { skip: string }> {
    const position = claim.changePosition!;
    const [change] = await this.stores.changes.between(position - 1, position);
    if (!change) return { skip: 'the change is no longer kept' };
    const stores = this.stores;
    const app = await stores.apps.findActive(claim.webhook.appId);
    if (!app) return { skip: SUSPENDED };
    const viewer = appViewer(app);
    const access = createAccess(viewer, {
      eventById: async (id) => (await stores.events.findByIds([id]))[0] ?? null,
      organizerIds: async (id) => (await stores.events.organizerIds([id])).get(id) ?? [],
      registeredEventIds: async (id) => (await stores.registrations.eventIdsOfMany([id])).get(id) ?? [],
    });
    if (!(await visible(access, change))) return { skip: 'the app may not see this change now' };
    return { type: change.type, timestamp: new Date(change.occurredAt).toISOString(), data: await data(change) };

    async function data(c: ChangeRow): Promise<WebhookPayload['data']> {
      const event = c.deleted ? { slug: c.eventSlug, name: c.deleted.name } : await access.eventById(c.eventId);
      const readable = c.type.startsWith('event.') ? null : await access.registrations(c.eventId);
      const user = readable && c.userId !== null ? await stores.users.findById(c.userId) : undefined;
      return {
        cursor: encodeChangeCursor(c.position),
        event: event ? { slug: event.slug, name: event.name } : undefined,
        registration:
          readable && c.registrationId !== null && c.type.startsWith('registration.')
            ? { id: globalId('Registration', c.registrationId) }
            : null,
        registrant: user ? { id: user.uid, name: user.name, activationState: user.activationState } : null,
      };
    }
  }

  /** Writes how the attempt ended: delivered, retried after the schedule's next delay, or failed. */
  async complete(claim: ClaimedDelivery, report: AttemptReport, at: number): Promise<AttemptOutcome> {
    const attempt = { at, status: report.status ?? null, durationMs: report.durationMs, error: report.error ?? null };
    const made = claim.attempts + 1;
    const delay = claim.kind === 'ping' ? undefined : this.rules.retrySchedule[made - 1];
    const outcome: AttemptOutcome =
      attempt.error === null
        ? { state: 'delivered', attempt }
        : delay === undefined
          ? { state: 'failed', attempt }
          : { state: 'pending', attempt, nextAttemptAt: at + delay };
    if (attempt.error !== null) {
      outcome.disable = {
        afterMs: this.rules.disableAfterMs,
        reason: `every attempt failed for ${ms(this.rules.disableAfterMs)}; the last: ${attempt.error}`,
      };
    }
    await this.stores.deliveries.finish(claim, outcome, at);
    return outcome;
  }

  /** Ends a delivery without an attempt, saying why. */
  async skip(claim: ClaimedDelivery, reason: string): Promise<void> {
    await this.stores.deliveries.finish(claim, { state: 'skipped', note: reason });
  }

  /** Pending deliveries of enabled webhooks, and how long the oldest has waited (ms). */
  async backlog(now = Date.now()): Promise<{ pending: number; oldestAgeMs: number }> {
    const { count, oldestCreatedAt } = await this.stores.deliveries.pendingStats();
    return { pending: count, oldestAgeMs: oldestCreatedAt === null ? 0 : Math.max(0, now - oldestCreatedAt) };
  }

  /** Drops finished deliveries older than `cutoff`. */
  prune(cutoff: number): Promise<number> {
    return this.stores.deliveries.pruneFinished(cutoff);
  }
}
