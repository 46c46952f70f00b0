import { randomBytes } from 'node:crypto';
import { isRowId } from '../lib/ids.js';
import { seal } from '../lib/sealed-secret.js';
import { printable, quoted } from '../lib/text.js';
import { newWebhookSecret } from '../lib/webhook-signature.js';
import { CHANGE_TYPES, type ChangeType } from '../stores/change-store.js';
import type { Stores } from '../stores/stores.js';
import type { AttemptRow, DeliveryRow, WebhookRow } from '../stores/webhook-store.js';
import { canSeeEvent } from './policy.js';
import { Conflict, InvalidInput, NotFound } from './errors.js';
import * as v from './validation.js';
import { audited, type Actor } from './audit.js';

/** A webhook as the audit trail names it: never its URL, whose query may carry a receiver's secret. */
const named = (w: { id: number; clientId: string }) => ({ subject: `webhook ${w.id}`, clientId: w.clientId });

/** Recent deliveries and attempts an owner or operator is shown of one webhook. */
export const RECENT = 50;

/** What the webhook rules depend on in this deployment. */
export interface WebhookRules {
  maxWebhooksPerApp: number;
}

/** What the process that builds the service provides. */
export interface WebhookDeps {
  /** The URL as a webhook keeps it, or an InvalidInput saying why not (its form, scheme and addresses). */
  validateUrl(url: string): Promise<string>;
  /** The key webhook secrets are sealed with. */
  secretsKey(): Promise<Buffer>;
}

export interface NewWebhookInput {
  appId: number;
  url: string;
  /** Change types as the webhook `type`s spell them (`registration.created`); none: every type. */
  types?: readonly string[];
  /** Only changes of this event (its slug). */
  event?: string;
}

/** A webhook as listed, with its app's client id: never its secret. */
export type WebhookView = Omit<WebhookRow, 'secretSealed'> & { clientId: string; lastDelivery: DeliveryRow | null };

/** `registration.created` and every other webhook type, checked; an empty list is every type. */
export function changeTypes(list: readonly string[]): ChangeType[] | null {
  const types = new Set<ChangeType>();
  for (const raw of list) {
    const type = raw.trim();
    if (!(CHANGE_TYPES as readonly string[]).includes(type)) {
      throw new InvalidInput(`must be one of ${CHANGE_TYPES.join(', ')}; got ${quoted(printable(type, 60))}`, 'type');
    }
    types.add(type as ChangeType);
  }
  return types.size ? [...types] : null;
}

/** An app's webhooks: added, listed, tested, redelivered and removed by its owner or an operator. */
export class WebhookService {
  constructor(
    private readonly stores: Stores,
    private readonly rules: WebhookRules,
    private readonly deps: WebhookDeps,
  ) {}

  /** The new webhook and its secret (`whsec_…`), which is shown this once. */
  async create(input: NewWebhookInput, by?: Actor): Promise<{ webhook: WebhookView; secret: string }> {
    const types = changeTypes(input.types ?? []);
    const eventSlug = input.event === undefined ? null : await this.eventFor(input.appId, input.event);
    const url = await this.deps.validateUrl(input.url);
    const secret = newWebhookSecret();
    const secretSealed = seal(secret, await this.deps.secretsKey());
    const [clientId] = (await this.stores.apps.clientIds([input.appId])).values();
    const created = await audited(
      this.stores,
      by,
      async (s) => {
        const row = await s.webhooks.create(
          { appId: input.appId, url, secretSealed, types, eventSlug },
          this.rules.maxWebhooksPerApp,
        );
        if (!row)
          throw new Conflict(`an app may have at most ${this.rules.maxWebhooksPerApp} webhooks; delete one first`);
        return row;
      },
      (row) => ({ action: 'webhook.created', ...named({ id: row.id, clientId: clientId ?? '' }) }),
    );
    return { webhook: (await this.views([created]))[0]!, secret };
  }

  /** The event's slug, if the app may see the event now: a filter on an unseen event would only stay silent. */
  private async eventFor(appId: number, raw: string): Promise<string> {
    const slug = v.slug(raw.trim(), 'event');
    const [app, event] = await Promise.all([this.stores.apps.findActive(appId), this.stores.events.findBySlug(slug)]);
    const organizers = event ? ((await this.stores.events.organizerIds([event.id])).get(event.id) ?? []) : [];
    const viewer = app && { kind: 'app' as const, appId, clientId: '', appName: '', ownerId: app.ownerId, scopes: [] };
    if (!event || !viewer || !canSeeEvent(viewer, event, organizers)) {
      throw new InvalidInput(`names no event the app can see: ${quoted(slug)}`, 'event');
    }
    return slug;
  }

  /** Every webhook of an app, or of every app, with its last delivery. */
  async list(appId?: number): Promise<WebhookView[]> {
    return this.views(await this.stores.webhooks.list(appId));
  }

  private async views(rows: WebhookRow[]): Promise<WebhookView[]> {
    const [last, clientIds] = await Promise.all([
      this.stores.webhooks.lastDeliveries(rows.map((w) => w.id)),
      this.stores.apps.clientIds(rows.map((w) => w.appId)),
    ]);
    return rows.map(({ secretSealed: _secret, ...w }) => ({
      ...w,
      clientId: clientIds.get(w.appId) ?? '',
      lastDelivery: last.get(w.id) ?? null,
    }));
  }

  /** The webhook of this id; with `ownerId`, only if one of that user's apps has it (the same NotFound otherwise). */
  async find(id: number, ownerId?: number): Promise<WebhookView> {
    const row = isRowId(id)
      ? ownerId === undefined
        ? await this.stores.webhooks.find(id)
        : await this.stores.webhooks.findOwned(ownerId, id)
      : undefined;
    if (!row) throw new NotFound(`no webhook ${id}`);
    return (await this.views([row]))[0]!;
  }

  async delete(id: number, ownerId?: number, by?: Actor): Promise<void> {
    const webhook = await this.find(id, ownerId);
    await audited(
      this.stores,
      by,
      (s) => s.webhooks.delete(id),
      () => ({ action: 'webhook.deleted', ...named(webhook) }),
    );
  }

  /** Enabled again after it was disabled for its failures; what was queued before resumes. */
  async enable(id: number, ownerId?: number, by?: Actor): Promise<WebhookView> {
    const webhook = await this.find(id, ownerId);
    await audited(
      this.stores,
      by,
      (s) => s.webhooks.enable(id),
      () => ({ action: 'webhook.enabled', ...named(webhook) }),
    );
    return this.find(id, ownerId);
  }

  /** The webhook's newest deliveries and attempts, newest first. */
  async history(id: number, ownerId?: number): Promise<{ deliveries: DeliveryRow[]; attempts: AttemptRow[] }> {
    await this.find(id, ownerId);
    // One moment of the database: a delivery shown finished has its attempt shown too (written together).
    const [deliveries, attempts] = await this.stores.snapshot((s) =>
      Promise.all([s.deliveries.deliveries(id, RECENT), s.deliveries.attempts(id, RECENT)]),
    );
    return { deliveries, attempts };
  }

  /** Queues a `webhook.ping` delivery, sent at once and never retried. */
  async ping(id: number, ownerId?: number, by?: Actor): Promise<DeliveryRow> {
    const webhook = await this.find(id, ownerId);
    if (!webhook.enabled) throw new Conflict('the webhook is disabled: enable it first');
    const messageId = `msg_ping_${randomBytes(12).toString('base64url')}`;
    const queue = (s: Stores) => s.deliveries.queuePing(id, messageId);
    return audited(this.stores, by, queue, () => ({ action: 'webhook.pinged', ...named(webhook) }));
  }

  /** Sends a delivery again, its retry schedule from the start; same `webhook-id`, so receivers may dedupe. */
  async redeliver(deliveryId: number, ownerId?: number, by?: Actor): Promise<DeliveryRow> {
    const delivery =
      Number.isSafeInteger(deliveryId) && deliveryId > 0 ? await this.stores.deliveries.find(deliveryId) : undefined;
    if (!delivery) throw new NotFound(`no delivery ${deliveryId}`);
    const webhook = await this.find(delivery.webhookId, ownerId).catch(() => {
      throw new NotFound(`no delivery ${deliveryId}`);
    });
    if (!webhook.enabled) throw new Conflict('the webhook is disabled: enable it first');
    const again = async (s: Stores) => {
      if (!(await s.deliveries.redeliver(deliveryId))) {
        throw new Conflict('the delivery is being sent right now: try again in a few seconds');
      }
    };
    await audited(this.stores, by, again, () => ({ action: 'webhook.redelivered', ...named(webhook) }));
    return (await this.stores.deliveries.find(deliveryId))!;
  }
}
