import type { WebhookView } from '../../services/webhook-service.js';
import type { AttemptRow, DeliveryRow } from '../../stores/webhook-store.js';
import type { ClientAppRow } from '../../stores/types.js';
import { html } from '../../http/pages/html.js';
import { appWebhooksHref, webhookHref } from '../../http/paths.js';
import { alert, layout, type Page } from '../../http/pages/layout.js';
import { notice, postButton } from './page-parts.js';
import { deliveryState, deliveryWhat, eventOf, lastAnswer, stateOf, typesOf, when } from './webhook-parts.js';
import { webhookActions } from './webhook-pages.js';

/** The path of sending one of a webhook's deliveries again. */
export const redeliverPath = (d: DeliveryRow) => webhookHref(d.webhookId, `/deliveries/${d.id}/redeliver`);

function deliveriesTable(deliveries: DeliveryRow[], csrf: string) {
  if (deliveries.length === 0) return html`<p class="muted">Nothing has been sent to this webhook yet.</p>`;
  return html`<table class="stack tight" id="deliveries">
    <thead>
      <tr>
        <th scope="col">Delivery</th>
        <th scope="col">State</th>
        <th scope="col">Attempts</th>
        <th scope="col">Last answer</th>
        <th scope="col">When</th>
        <th scope="col"><span class="visually-hidden">Actions</span></th>
      </tr>
    </thead>
    <tbody>
      ${deliveries.map(
        (d) =>
          html`<tr id="delivery-${d.id}">
            <td data-label="Delivery">
              ${deliveryWhat(d)}<br /><span class="muted">webhook-id <code>${d.messageId}</code></span>
            </td>
            <td data-label="State"><strong class="state">${deliveryState(d)}</strong></td>
            <td data-label="Attempts" class="attempts">${d.attempts}</td>
            <td data-label="Last answer">${lastAnswer(d)}</td>
            <td data-label="When">
              queued
              ${when(d.createdAt)}${d.finishedAt !== null ? html`<br />ended ${when(d.finishedAt)}` : ''}${
                d.state === 'pending' ? html`<br />next attempt ${when(d.nextAttemptAt)}` : ''
              }
            </td>
            <td>
              ${postButton(
                redeliverPath(d),
                csrf,
                html`Redeliver<span class="visually-hidden"> delivery ${d.id}</span>`,
              )}
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

function attemptsTable(attempts: AttemptRow[]) {
  if (attempts.length === 0) return html`<p class="muted">No attempts yet.</p>`;
  return html`<table class="stack tight" id="attempts">
    <thead>
      <tr>
        <th scope="col">Time</th>
        <th scope="col">webhook-id</th>
        <th scope="col">Status</th>
        <th scope="col">Duration</th>
        <th scope="col">Error</th>
      </tr>
    </thead>
    <tbody>
      ${attempts.map(
        (a) =>
          html`<tr>
            <td data-label="Time">${when(a.at)}</td>
            <td data-label="webhook-id"><code>${a.messageId}</code></td>
            <td data-label="Status">${a.status ?? html`<span class="muted">no answer</span>`}</td>
            <td data-label="Duration">${a.durationMs} ms</td>
            <td data-label="Error">${a.error ?? html`<span class="muted">none</span>`}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** One webhook: its settings and health, its newest deliveries (each may be sent again) and attempts. */
export function webhookPage(input: {
  app: ClientAppRow;
  webhook: WebhookView;
  deliveries: DeliveryRow[];
  attempts: AttemptRow[];
  /** How many of each the page lists at most. */
  recent: number;
  csrf: string;
  error?: string;
  notice?: string;
}): Page {
  const { app, webhook, csrf } = input;
  return layout(
    `Webhook ${webhook.id} of ${app.name}`,
    html`<h1>Webhook of ${app.name}</h1>
      <p><a href="${appWebhooksHref(app.id)}">Back to the webhooks of ${app.name}</a></p>
      ${alert(input.error)} ${notice(input.notice)}
      <dl>
        <dt>URL</dt>
        <dd><code>${webhook.url}</code></dd>
        <dt>Sends</dt>
        <dd>${typesOf(webhook)}, ${eventOf(webhook)}</dd>
        <dt>State</dt>
        <dd>${stateOf(webhook)}</dd>
        <dt>Added</dt>
        <dd>${when(webhook.createdAt)}</dd>
      </dl>
      ${webhookActions(webhook, csrf, true)}
      <h2>Deliveries</h2>
      <p class="muted">
        The newest ${input.recent}. Redelivering sends one again with the same <code>webhook-id</code>, its retries from
        the start.
      </p>
      ${deliveriesTable(input.deliveries, csrf)}
      <h2>Attempts</h2>
      <p class="muted">The newest ${input.recent}, of every delivery.</p>
      ${attemptsTable(input.attempts)}`,
    { wide: true },
  );
}
