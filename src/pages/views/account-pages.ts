import type { Authorization } from '../../services/grant-service.js';
import type { ClientAppRow, UserRow } from '../../stores/types.js';
import { html, type SafeHtml } from '../../http/pages/html.js';
import { accountHref, accountTokensHref, appWebhooksHref } from '../../http/paths.js';
import { alert, csrfField, layout, signInForm, type Page } from '../../http/pages/layout.js';
import { confirmPage, linkButton, notice, postButton } from './page-parts.js';
import { activityTable } from './activity-parts.js';
import type { StoredAudit } from '../../stores/audit-store.js';

export function accountLoginPage(input: { csrf: string; error?: string; email?: string }): Page {
  return layout(
    'Account settings',
    html`<h1>Account settings</h1>
      <p class="muted">Sign in to manage your apps and the apps you have authorized.</p>
      ${alert(input.error)} ${signInForm(accountHref('/login'), input.csrf, input.email)}`,
  );
}

const appPath = (app: ClientAppRow, action: AppAction | 'edit') => accountHref(`/apps/${app.id}/${action}`);

/** The path of revoking a user's authorization of an app. */
export const revokePath = (clientId: string) => accountHref(`/authorizations/${encodeURIComponent(clientId)}/revoke`);

function appsTable(apps: ClientAppRow[]) {
  if (apps.length === 0) return html`<p class="muted">You have not registered any apps.</p>`;
  // Under 40rem the stylesheet stacks each row into a card, each cell under its data-label.
  return html`<table class="stack">
    <thead>
      <tr>
        <th scope="col">App</th>
        <th scope="col">Client id</th>
        <th scope="col">Redirect URIs</th>
        <th scope="col">Actions</th>
      </tr>
    </thead>
    <tbody>
      ${apps.map(
        (app) =>
          html`<tr>
            <td data-label="App">
              <strong>${app.name}</strong><br /><span class="muted"
                >${app.clientSecretHash ? 'confidential' : 'public'}</span
              >
            </td>
            <td data-label="Client id"><code>${app.clientId}</code></td>
            <td data-label="Redirect URIs">
              <ul class="plain">
                ${app.redirectUris.map((u) => html`<li><code>${u}</code></li>`)}
              </ul>
              <a href="${appPath(app, 'edit')}"
                >Edit redirect URIs<span class="visually-hidden"> of ${app.name}</span></a
              >
            </td>
            <td data-label="Actions">
              <div class="row-actions">
                ${linkButton(
                  appWebhooksHref(app.id),
                  html`Webhooks<span class="visually-hidden"> of ${app.name}</span>`,
                )}
                ${app.clientSecretHash ? linkButton(appPath(app, 'secret'), 'New client secret') : ''}
                ${linkButton(appPath(app, 'token'), 'New app token')}
                ${linkButton(appPath(app, 'delete'), `Delete ${app.name}`, 'danger')}
              </div>
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

function authorizationsTable(authorizations: Authorization[]) {
  if (authorizations.length === 0) return html`<p class="muted">You have not authorized any apps.</p>`;
  return html`<table class="stack">
    <thead>
      <tr>
        <th scope="col">App</th>
        <th scope="col">Access granted</th>
        <th scope="col"><span class="visually-hidden">Actions</span></th>
      </tr>
    </thead>
    <tbody>
      ${authorizations.map(
        (a) =>
          html`<tr>
            <td data-label="App"><strong>${a.appName}</strong></td>
            <td data-label="Access granted">${a.scopes.map((s) => html`<code>${s}</code> `)}</td>
            <td>${linkButton(revokePath(a.clientId), `Revoke ${a.appName}`, 'danger')}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** The redirect URI field, one URI a line, as registration and editing show it. */
const redirectUrisField = (value: string) =>
  html`<label for="redirect-uris">Redirect URIs <span class="muted">(one per line)</span></label>
    <textarea id="redirect-uris" name="redirect_uris" rows="3" required>${value}</textarea>`;

export function dashboardPage(input: {
  user: UserRow;
  apps: ClientAppRow[];
  authorizations: Authorization[];
  /** The newest rows of the audit trail about this account. */
  activity: StoredAudit[];
  csrf: string;
  error?: string;
  notice?: string;
  form?: { name?: string; redirectUris?: string; type?: string };
}): Page {
  const { csrf } = input;
  const type = input.form?.type === 'public' ? 'public' : 'confidential';
  return layout(
    'Account settings',
    html`<h1>Account settings</h1>
      <p class="muted">
        Signed in as ${input.user.email ?? input.user.uid}. ${postButton(accountHref('/logout'), csrf, 'Sign out')}
      </p>
      ${alert(input.error)} ${notice(input.notice)}
      <h2>Your apps</h2>
      ${appsTable(input.apps)}
      <h2>Register an app</h2>
      <form method="post" action="${accountHref('/apps')}">
        ${csrfField(csrf)}
        <label for="app-name">Name</label>
        <input id="app-name" name="name" type="text" required maxlength="200" value="${input.form?.name ?? ''}" />
        ${redirectUrisField(input.form?.redirectUris ?? '')}
        <fieldset>
          <legend>Type</legend>
          <div class="radio">
            <label
              ><input type="radio" name="type" value="confidential" ${type === 'confidential' ? html` checked` : ''} />
              Confidential (a server that keeps a secret)</label
            >
            <label
              ><input type="radio" name="type" value="public" ${type === 'public' ? html` checked` : ''} /> Public
              (browser or mobile app, PKCE)</label
            >
          </div>
        </fieldset>
        <div class="actions"><button type="submit">Register app</button></div>
      </form>
      <h2>Apps you have authorized</h2>
      ${authorizationsTable(input.authorizations)}
      <h2>Personal access tokens</h2>
      <p>
        Tokens of your own, for scripts and tools that read the API as you.
        ${linkButton(accountTokensHref(), 'Manage personal access tokens')}
      </p>
      <h2>Recent activity</h2>
      ${activityTable(input.activity)}`,
    { wide: true },
  );
}

/** The form that edits an app's redirect URIs, prefilled with the current ones (or with what was typed). */
export function editAppPage(input: { app: ClientAppRow; csrf: string; redirectUris?: string; error?: string }): Page {
  const { app } = input;
  return layout(
    `Edit ${app.name}`,
    html`<h1>Redirect URIs of ${app.name}</h1>
      <p class="muted">
        Sign-in requests must name one of these exactly. A change applies to the next request; sign-ins already granted
        keep working.
      </p>
      ${alert(input.error)}
      <form method="post" action="${appPath(app, 'edit')}">
        ${csrfField(input.csrf)} ${redirectUrisField(input.redirectUris ?? app.redirectUris.join('\n'))}
        <div class="actions">
          <button type="submit">Save redirect URIs</button>
          ${linkButton(accountHref(), 'Cancel')}
        </div>
      </form>`,
  );
}

/** The actions on an app that destroy something, each confirmed on a page of its own first. */
export type AppAction = 'delete' | 'token' | 'secret';

/** What the confirmation of each says: its title and button, and what will be lost (which may name the service). */
const APP_ACTIONS: Record<
  AppAction,
  {
    title: (name: string) => string;
    button: (name: string) => string;
    loses: (name: string, service: string) => SafeHtml;
  }
> = {
  delete: {
    title: (name) => `Delete ${name}?`,
    button: (name) => `Delete ${name}`,
    loses: (_name, service) =>
      html`Its client id, client secret and app token stop working at once, and every sign-in and token ${service}
      issued to it ends: its users must authorize a new app. This cannot be undone.`,
  },
  token: {
    title: (name) => `Replace the app token of ${name}?`,
    button: () => 'Replace app token',
    loses: (name) =>
      html`The current app token stops working at once: whatever uses it is refused until you give it the new token,
      which is shown once. Sign-ins and user tokens of ${name} are not affected.`,
  },
  secret: {
    title: (name) => `Replace the client secret of ${name}?`,
    button: () => 'Replace client secret',
    loses: (name) =>
      html`The current client secret stops working at once: ${name} cannot sign users in or refresh their tokens until
      it is configured with the new secret, which is shown once.`,
  },
};

export function confirmAppActionPage(input: { app: ClientAppRow; action: AppAction; csrf: string }): Page {
  const { app, action } = input;
  const about = APP_ACTIONS[action];
  return confirmPage({
    title: about.title(app.name),
    loses: (service) => about.loses(app.name, service),
    action: appPath(app, action),
    button: about.button(app.name),
    csrf: input.csrf,
  });
}

export function confirmRevokePage(input: { authorization: Authorization; csrf: string }): Page {
  const { appName, clientId } = input.authorization;
  return confirmPage({
    title: `Revoke the access of ${appName}?`,
    loses: (service) =>
      html`${appName} loses access to your ${service} account at once: its tokens for you stop working, and it must ask
      you again before it can sign you in.`,
    action: revokePath(clientId),
    button: `Revoke ${appName}`,
    csrf: input.csrf,
  });
}

/** Shown once, right after creation or regeneration: only hashes are kept. */
export function credentialsPage(input: {
  app: ClientAppRow;
  title: string;
  clientSecret?: string | null;
  appToken?: string;
}): Page {
  const { app } = input;
  return layout(
    input.title,
    (service) =>
      html`<h1>${input.title}</h1>
        <p class="notice" role="status">
          Copy these now: ${service} keeps only their hashes and cannot show them again.
        </p>
        <dl>
          <dt>Client id</dt>
          <dd><code id="client-id" class="secret">${app.clientId}</code></dd>
          ${
            input.clientSecret
              ? html`<dt>Client secret</dt>
                  <dd><code id="client-secret" class="secret">${input.clientSecret}</code></dd>`
              : ''
          }
          ${
            input.appToken
              ? html`<dt>App token</dt>
                  <dd><code id="app-token" class="secret">${input.appToken}</code></dd>`
              : ''
          }
        </dl>
        <p><a href="${accountHref()}">Back to account settings</a></p>`,
  );
}
