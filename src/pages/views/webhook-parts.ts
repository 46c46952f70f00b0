import type { WebhookView } from '../../services/webhook-service.js';
import type { DeliveryRow } from '../../stores/webhook-store.js';
import { html, type SafeHtml } from '../../http/pages/html.js';

// How the webhook pages show a webhook's settings, its health and a delivery.

/** The change types a webhook may be sent, with what each means, in the order the form lists them. */
export const TYPE_LABELS: readonly (readonly [string, string])[] = [
  ['registration.created', 'someone registers for an event'],
  ['registration.deleted', 'a registration is removed'],
  ['registrant.updated', 'a registrant’s name, email or activation state changes'],
  ['event.created', 'an event is created'],
  ['event.updated', 'an event’s fields or organizers change'],
  ['event.deleted', 'an event is deleted'],
];

/** A time as an unambiguous UTC date and time, for people and (in `datetime`) machines. */
export const when = (ms: number | null): SafeHtml | string => {
  if (ms === null) return '';
  const iso = new Date(ms).toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 19).replace('T', ' ')} UTC</time>`;
};

/** The change types it is sent: each by name, or every type. */
export const typesOf = (w: WebhookView): SafeHtml =>
  w.types ? html`${w.types.map((t, i) => html`${i ? ', ' : ''}<code>${t}</code>`)}` : html`every type`;

/** Its event filter: every event the app can see, or one by its slug. */
export const eventOf = (w: WebhookView): SafeHtml =>
  w.eventSlug ? html`only <code>${w.eventSlug}</code>` : html`every event the app can see`;

/** Since when every attempt failed, while it still is enabled. */
const failing = (w: WebhookView) =>
  w.failingSince === null ? '' : html`<br /><span class="muted">failing since ${when(w.failingSince)}</span>`;

/** Why it was disabled, as its owner is shown. */
const reason = (w: WebhookView) => html`<span class="disabled-reason">${w.disabledReason ?? 'no reason given'}</span>`;

/** Enabled, or disabled with the reason. */
export const stateOf = (w: WebhookView): SafeHtml =>
  w.enabled
    ? html`<strong class="webhook-state">Enabled</strong>${failing(w)}`
    : html`<strong class="webhook-state">Disabled</strong><br />${reason(w)}`;

/** What a delivery carries: a test ping, or the change at its position in the log. */
export const deliveryWhat = (d: DeliveryRow): string =>
  d.kind === 'ping' ? 'test ping (webhook.ping)' : `change ${d.changePosition ?? ''}`.trim();

/** A delivery's state in words: a pending one that has failed before is waiting for its retry. */
export const deliveryState = (d: DeliveryRow): string =>
  d.state === 'pending' && d.attempts > 0 ? 'retrying' : d.state;

/** The last answer of a delivery: its HTTP status and the error, if any. */
export const lastAnswer = (d: DeliveryRow): SafeHtml => {
  const status = d.lastStatus === null ? '' : html`HTTP <span class="status">${d.lastStatus}</span>`;
  const error = d.lastError === null ? '' : html`<span class="error">${d.lastError}</span>`;
  return html`${status}${status && error ? html`<br />` : ''}${error}`;
};

/** The newest delivery of a webhook, in one cell: state, status or error, and when. */
export const lastDelivery = (w: WebhookView): SafeHtml => {
  const d = w.lastDelivery;
  if (!d) return html`<span class="muted">none yet</span>`;
  const answer = lastAnswer(d);
  const at = html`<span class="muted">${when(d.finishedAt ?? d.createdAt)}</span>`;
  return html`<strong class="delivery-state">${deliveryState(d)}</strong> · ${deliveryWhat(d)}<br />${answer}${
      answer.value ? html`<br />` : ''
    }${at}`;
};
