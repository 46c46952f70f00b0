import { html } from '../../http/pages/html.js';
import { accountHref, accountTokensHref } from '../../http/paths.js';
import { alert, csrfField, layout, type Page } from '../../http/pages/layout.js';
import { SUPPORTED_SCOPES } from '../../lib/scopes.js';
import type { PersonalTokenRow } from '../../stores/personal-token-store.js';
import { confirmPage, linkButton, notice } from './page-parts.js';
// The consent page's words for each scope: a personal token may do exactly what an app granted it may.
import { scopeDescriptions } from './interaction-pages.js';

/** The lifetimes offered, as the service reads them (`30d`), with the default first among equals. */
export const EXPIRY_CHOICES = [
  ['7d', '7 days'],
  ['30d', '30 days'],
  ['90d', '90 days'],
  ['365d', '1 year'],
] as const;
export const DEFAULT_EXPIRY = '30d';

export interface TokenForm {
  name: string;
  scopes: string[];
  expiresIn: string;
}

const day = (at: number) => new Date(at).toISOString().slice(0, 10);

function tokensTable(tokens: readonly PersonalTokenRow[], now: number) {
  if (tokens.length === 0) return html`<p class="muted">You have no personal access tokens.</p>`;
  return html`<table class="stack" id="personal-tokens">
    <thead>
      <tr>
        <th scope="col">Name</th>
        <th scope="col">Scopes</th>
        <th scope="col">Created</th>
        <th scope="col">Last used</th>
        <th scope="col">Expires</th>
        <th scope="col"><span class="visually-hidden">Actions</span></th>
      </tr>
    </thead>
    <tbody>
      ${tokens.map(
        (t) =>
          html`<tr>
            <td data-label="Name"><strong>${t.name}</strong></td>
            <td data-label="Scopes">${t.scopes.map((s) => html`<code>${s}</code> `)}</td>
            <td data-label="Created">${day(t.createdAt)}</td>
            <td data-label="Last used">${t.lastUsedAt === null ? 'never' : day(t.lastUsedAt)}</td>
            <td data-label="Expires">
              ${t.expiresAt <= now ? html`<strong>expired</strong> ${day(t.expiresAt)}` : day(t.expiresAt)}
            </td>
            <td>
              ${linkButton(accountTokensHref(`/${t.id}/delete`), html`Delete<span class="visually-hidden"> ${t.name}</span>`, 'danger')}
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** The user's tokens, and the form that makes one. */
export function tokensPage(input: {
  tokens: readonly PersonalTokenRow[];
  csrf: string;
  max: number;
  error?: string;
  notice?: string;
  form?: TokenForm;
  now?: number;
}): Page {
  const form = input.form ?? { name: '', scopes: ['openid'], expiresIn: DEFAULT_EXPIRY };
  return layout(
    'Personal access tokens',
    (service) =>
      html`<h1>Personal access tokens</h1>
        <p class="muted">
          A personal access token acts as you at the ${service} GraphQL API and userinfo endpoint, with the scopes you
          choose, until it expires or you delete it. Treat it like a password. You may hold ${input.max}.
        </p>
        ${alert(input.error)} ${notice(input.notice)} ${tokensTable(input.tokens, input.now ?? Date.now())}
        <h2>New token</h2>
        <form method="post" action="${accountTokensHref()}">
          ${csrfField(input.csrf)}
          <label for="token-name">Name <span class="muted">(what it is for)</span></label>
          <input id="token-name" name="name" type="text" required maxlength="100" value="${form.name}" />
          <fieldset>
            <legend>Scopes</legend>
            <div class="checks">
              ${SUPPORTED_SCOPES.map(
                (scope) =>
                  html`<label
                    ><input
                      type="checkbox"
                      name="scope"
                      value="${scope}"
                      ${form.scopes.includes(scope) ? html` checked` : ''}
                    />
                    <code>${scope}</code>: ${scopeDescriptions(service)[scope]!.grants}</label
                  >`,
              )}
            </div>
          </fieldset>
          <label for="token-expiry">Expires after</label>
          <select id="token-expiry" name="expires_in">
            ${EXPIRY_CHOICES.map(
              ([value, label]) =>
                html`<option value="${value}" ${form.expiresIn === value ? html` selected` : ''}>${label}</option>`,
            )}
          </select>
          <div class="actions">
            <button type="submit">Create token</button>
            ${linkButton(accountHref(), 'Back to account settings')}
          </div>
        </form>`,
    { wide: true },
  );
}

/** Shown once, right after creation: only its hash is kept. */
export function tokenCreatedPage(input: { token: string; row: PersonalTokenRow }): Page {
  const { row } = input;
  return layout(
    `${row.name} is created`,
    (service) =>
      html`<h1>Personal access token ${row.name}</h1>
        <p class="notice" role="status">Copy it now: ${service} keeps only its hash and cannot show it again.</p>
        <dl>
          <dt>Token</dt>
          <dd><code id="personal-token" class="secret">${input.token}</code></dd>
          <dt>Scopes</dt>
          <dd>${row.scopes.map((s) => html`<code>${s}</code> `)}</dd>
          <dt>Expires</dt>
          <dd>${day(row.expiresAt)}</dd>
        </dl>
        <p>Send it as <code>Authorization: Bearer …</code>.</p>
        <p><a href="${accountTokensHref()}">Back to personal access tokens</a></p>`,
  );
}

export function confirmDeleteTokenPage(input: { row: PersonalTokenRow; csrf: string }): Page {
  const { row } = input;
  return confirmPage({
    title: `Delete the personal access token ${row.name}?`,
    loses: () => html`Whatever uses ${row.name} is refused from the next request on. This cannot be undone.`,
    action: accountTokensHref(`/${row.id}/delete`),
    button: `Delete ${row.name}`,
    csrf: input.csrf,
    back: accountTokensHref(),
  });
}
