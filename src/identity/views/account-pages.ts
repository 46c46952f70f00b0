import type { Authorization } from '../../services/grant-service.js';
import type { ClientAppRow, UserRow } from '../../stores/types.js';
import { html } from '../../http/pages/html.js';
import { alert, csrfField, layout, signInForm } from '../../http/pages/layout.js';

export function accountLoginPage(input: { csrf: string; error?: string; email?: string }) {
  return layout(
    'Account settings',
    html`<h1>Account settings</h1>
      <p class="muted">Sign in to manage your apps and the apps you have authorized.</p>
      ${alert(input.error)} ${signInForm('/account/login', input.csrf, input.email)}`,
  );
}

const postButton = (action: string, csrf: string, label: string, kind = 'secondary') =>
  html`<form class="inline" method="post" action="${action}">
    ${csrfField(csrf)}<button type="submit" class="${kind}">${label}</button>
  </form>`;

export function dashboardPage(input: {
  user: UserRow;
  apps: ClientAppRow[];
  authorizations: Authorization[];
  csrf: string;
  error?: string;
  notice?: string;
  form?: { name?: string; redirectUris?: string; type?: string };
}) {
  const { csrf } = input;
  const apps = input.apps.length
    ? html`<table>
        <thead>
          <tr>
            <th scope="col">App</th>
            <th scope="col">Client id</th>
            <th scope="col">Redirect URIs</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          ${input.apps.map(
            (app) =>
              html`<tr>
                <td>${app.name}<br /><span class="muted">${app.clientSecretHash ? 'confidential' : 'public'}</span></td>
                <td><code>${app.clientId}</code></td>
                <td>${app.redirectUris.map((u) => html`<code>${u}</code><br />`)}</td>
                <td>
                  ${app.clientSecretHash ? postButton(`/account/apps/${app.id}/secret`, csrf, 'New client secret') : ''}
                  ${postButton(`/account/apps/${app.id}/token`, csrf, 'New app token')}
                  ${postButton(`/account/apps/${app.id}/delete`, csrf, `Delete ${app.name}`, 'danger')}
                </td>
              </tr>`,
          )}
        </tbody>
      </table>`
    : html`<p class="muted">You have not registered any apps.</p>`;
  const authorizations = input.authorizations.length
    ? html`<table>
        <thead>
          <tr>
            <th scope="col">App</th>
            <th scope="col">Access granted</th>
            <th scope="col"></th>
          </tr>
        </thead>
        <tbody>
          ${input.authorizations.map(
            (a) =>
              html`<tr>
                <td>${a.appName}</td>
                <td>${a.scopes.map((s) => html`<code>${s}</code> `)}</td>
                <td>
                  ${postButton(`/account/authorizations/${encodeURIComponent(a.clientId)}/revoke`, csrf, `Revoke ${a.appName}`, 'danger')}
                </td>
              </tr>`,
          )}
        </tbody>
      </table>`
    : html`<p class="muted">You have not authorized any apps.</p>`;
  const type = input.form?.type === 'public' ? 'public' : 'confidential';
  return layout(
    'Account settings',
    html`<h1>Account settings</h1>
      <p class="muted">
        Signed in as ${input.user.email ?? input.user.uid}. ${postButton('/account/logout', csrf, 'Sign out')}
      </p>
      ${alert(input.error)} ${input.notice ? html`<p class="notice" role="status">${input.notice}</p>` : ''}
      <h2>Your apps</h2>
      ${apps}
      <h2>Register an app</h2>
      <form method="post" action="/account/apps">
        ${csrfField(csrf)}
        <label for="app-name">Name</label>
        <input id="app-name" name="name" type="text" required maxlength="200" value="${input.form?.name ?? ''}" />
        <label for="redirect-uris">Redirect URIs <span class="muted">(one per line)</span></label>
        <textarea id="redirect-uris" name="redirect_uris" rows="3" required>${input.form?.redirectUris ?? ''}</textarea>
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
      ${authorizations}`,
  ).replace('<main>', '<main class="wide">');
}

/** Shown once, right after creation or regeneration: only hashes are kept. */
export function credentialsPage(input: {
  app: ClientAppRow;
  title: string;
  clientSecret?: string | null;
  appToken?: string;
}) {
  const { app } = input;
  return layout(
    input.title,
    html`<h1>${input.title}</h1>
      <p class="notice" role="status">Copy these now: Roster keeps only their hashes and cannot show them again.</p>
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
      <p><a href="/account">Back to account settings</a></p>`,
  );
}
