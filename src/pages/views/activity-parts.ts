import type { StoredAudit } from '../../stores/audit-store.js';
import { html } from '../../http/pages/html.js';

/** What the account page calls each action of the trail. */
const LABELS: Record<string, string> = {
  'sign_in.succeeded': 'Signed in',
  'sign_in.failed': 'Sign-in failed',
  'sign_in.throttled': 'Sign-in refused: too many attempts',
  'consent.granted': 'Allowed an app',
  'consent.denied': 'Denied an app',
  'token.issued': 'Token issued to an app',
  'token.refreshed': 'Token refreshed by an app',
  'token.revoked': 'Authorization revoked',
  'app.created': 'Registered an app',
  'app.updated': 'Changed an app',
  'app.deleted': 'Deleted an app',
  'app.secret_rotated': 'New client secret',
  'app.token_rotated': 'New app token',
  'personal_token.created': 'Personal access token created',
  'personal_token.revoked': 'Personal access token revoked',
  'password_reset.link_issued': 'Password reset link issued',
  'password_reset.completed': 'Password reset',
};

const when = (at: number) => new Date(at).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';

/** The account's recent activity, newest first; every value escaped by `html`. */
export function activityTable(rows: readonly StoredAudit[]) {
  if (rows.length === 0) return html`<p class="muted">No recent activity.</p>`;
  return html`<table class="stack" id="recent-activity">
    <thead>
      <tr>
        <th scope="col">When</th>
        <th scope="col">What</th>
        <th scope="col">App</th>
        <th scope="col">From</th>
      </tr>
    </thead>
    <tbody>
      ${rows.map(
        (r) =>
          html`<tr>
            <td data-label="When">${when(r.at)}</td>
            <td data-label="What">
              ${LABELS[r.action] ?? r.action}${r.count > 1 ? ` (×${r.count})` : ''}${
                r.actorType === 'operator' ? ' (by an operator)' : ''
              }
            </td>
            <td data-label="App">${r.clientId ? html`<code>${r.clientId}</code>` : ''}</td>
            <td data-label="From">
              ${r.address ?? ''}${r.userAgent ? html`<br /><span class="muted">${r.userAgent}</span>` : ''}
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}
