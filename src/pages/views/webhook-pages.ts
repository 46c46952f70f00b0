import type { WebhookView } from '../../services/webhook-service.js';
import type { ClientAppRow } from '../../stores/types.js';
import { html, type SafeHtml } from '../../http/pages/html.js';
import { accountHref, appWebhooksHref, webhookHref } from '../../http/paths.js';
import { alert, csrfField, layout, type Page } from '../../http/pages/layout.js';
import { confirmPage, linkButton, notice, postButton } from './page-parts.js';
import { eventOf, lastDelivery, stateOf, TYPE_LABELS, typesOf } from './webhook-parts.js';

/** What the form that adds a webhook was sent with, to show it again after a refusal. */
export interface WebhookForm {
  url: string;
  types: readonly string[];
  event: string;
}

/** A webhook's name on a page: its URL. */
const named = (w: WebhookView) => html`<code>${w.url}</code>`;

/** The actions on one webhook: its deliveries (unless on that page), a test ping or enabling it, deleting it. */
export const webhookActions = (w: WebhookView, csrf: string, onItsPage = false): SafeHtml => {
  const which = html`<span class="visually-hidden"> webhook ${w.id}</span>`;
  return html`<div class="${onItsPage ? 'actions' : 'row-actions'}">
    ${onItsPage ? '' : linkButton(webhookHref(w.id), html`Deliveries<span class="visually-hidden"> of webhook ${w.id}</span>`)}
    ${
      w.enabled
        ? postButton(
            webhookHref(w.id, '/ping'),
            csrf,
            html`Send test ping<span class="visually-hidden"> to webhook ${w.id}</span>`,
          )
        : postButton(webhookHref(w.id, '/enable'), csrf, html`Enable${which}`, 'primary')
    }
    ${linkButton(webhookHref(w.id, '/delete'), html`Delete${which}`, 'danger')}
  </div>`;
};

function webhooksTable(webhooks: WebhookView[], csrf: string) {
  if (webhooks.length === 0) return html`<p class="muted">This app has no webhooks.</p>`;
  return html`<table class="stack tight">
    <thead>
      <tr>
        <th scope="col">URL</th>
        <th scope="col">Sends</th>
        <th scope="col">State</th>
        <th scope="col">Last delivery</th>
        <th scope="col">Actions</th>
      </tr>
    </thead>
    <tbody>
      ${webhooks.map(
        (w) =>
          html`<tr id="webhook-${w.id}">
            <td data-label="URL">${named(w)}</td>
            <td data-label="Sends">${typesOf(w)}<br /><span class="muted">${eventOf(w)}</span></td>
            <td data-label="State">${stateOf(w)}</td>
            <td data-label="Last delivery">${lastDelivery(w)}</td>
            <td data-label="Actions">${webhookActions(w, csrf)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** The form that adds a webhook: its URL, the change types (none checked: every type) and an event. */
function addForm(app: ClientAppRow, csrf: string, form: WebhookForm | undefined, service: string) {
  const checked = new Set(form?.types ?? []);
  return html`<form method="post" action="${appWebhooksHref(app.id)}">
    ${csrfField(csrf)}
    <label for="webhook-url">URL <span class="muted">(https; where ${service} posts each change)</span></label>
    <input id="webhook-url" name="url" type="url" required value="${form?.url ?? ''}" />
    <fieldset>
      <legend>Change types <span class="muted">(none checked: every type)</span></legend>
      <div class="checks">
        ${TYPE_LABELS.map(
          ([type, what]) =>
            html`<label
              ><input type="checkbox" name="types" value="${type}" ${checked.has(type) ? html` checked` : ''} />
              <code>${type}</code> <span class="muted">${what}</span></label
            >`,
        )}
      </div>
    </fieldset>
    <label for="webhook-event"
      >Event <span class="muted">(optional: only changes of the event with this slug)</span></label
    >
    <input id="webhook-event" name="event" type="text" maxlength="100" value="${form?.event ?? ''}" />
    <div class="actions">
      <button type="submit">Add webhook</button>
      ${linkButton(accountHref(), 'Back to account settings')}
    </div>
  </form>`;
}

/** An app's webhooks: each with its health and last delivery, and the form that adds one. */
export function webhooksPage(input: {
  app: ClientAppRow;
  webhooks: WebhookView[];
  csrf: string;
  error?: string;
  notice?: string;
  form?: WebhookForm;
}): Page {
  const { app, csrf } = input;
  return layout(
    `Webhooks of ${app.name}`,
    (service) =>
      html`<h1>Webhooks of ${app.name}</h1>
        <p class="muted">
          ${service} posts each change ${app.name} may see to these URLs, signed as Standard Webhooks describes, and
          retries a delivery that fails. A webhook that fails and fails (by default for 5 days) is disabled until you
          enable it.
        </p>
        ${alert(input.error)} ${notice(input.notice)} ${webhooksTable(input.webhooks, csrf)}
        <h2>Add a webhook</h2>
        ${addForm(app, csrf, input.form, service)}`,
    { wide: true },
  );
}

/** Shown once, right after creation: the secret is kept sealed to sign deliveries, and never shown again. */
export function webhookSecretPage(input: { app: ClientAppRow; webhook: WebhookView; secret: string }): Page {
  const { app, webhook } = input;
  return layout(
    `Webhook added to ${app.name}`,
    (service) =>
      html`<h1>Webhook added to ${app.name}</h1>
        <p class="notice" role="status">
          Copy the signing secret now: ${service} shows it this once. Your receiver verifies each delivery's
          <code>webhook-signature</code> header with it.
        </p>
        <dl>
          <dt>URL</dt>
          <dd>${named(webhook)}</dd>
          <dt>Sends</dt>
          <dd>${typesOf(webhook)}, ${eventOf(webhook)}</dd>
          <dt>Signing secret</dt>
          <dd><code id="webhook-secret" class="secret">${input.secret}</code></dd>
        </dl>
        <p><a href="${appWebhooksHref(app.id)}">Back to the webhooks of ${app.name}</a></p>`,
  );
}

export function confirmDeleteWebhookPage(input: { app: ClientAppRow; webhook: WebhookView; csrf: string }): Page {
  const { app, webhook } = input;
  return confirmPage({
    title: `Delete the webhook to ${webhook.url}?`,
    loses: () =>
      html`Nothing more is sent to it, and its deliveries waiting to be sent or retried are dropped with their history.
      ${app.name} keeps its other webhooks. This cannot be undone.`,
    action: webhookHref(webhook.id, '/delete'),
    button: 'Delete webhook',
    csrf: input.csrf,
    back: appWebhooksHref(app.id),
  });
}
