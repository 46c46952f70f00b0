import { GRANT_TTL_DAYS } from '../../services/grant-lifetimes.js';
import { alert, csrfField, layout, signInForm, type Page } from '../../http/pages/layout.js';
import { html, trusted } from '../../http/pages/html.js';
import { accountHref, interactionHref } from '../../http/paths.js';

/** What each scope gives the app, in plain words: openid is also what the event API reads as. */
export const scopeDescriptions = (service: string): Record<string, { title: string; grants: string }> => ({
  openid: {
    title: 'Sign you in and read events as you',
    grants:
      `Confirm who you are, with your ${service} user id, and read ${service} as you: all public events, the private ` +
      'events you organize, and who registered for the events you organize, with their email addresses.',
  },
  email: { title: 'Your email address', grants: `Your email address and whether ${service} has verified it.` },
  profile: { title: 'Your profile', grants: 'Your name, profile picture and time zone.' },
});

export function loginPage(input: { uid: string; appName: string; csrf: string; email?: string; error?: string }): Page {
  const { uid, appName, csrf } = input;
  return layout(
    'Sign in',
    html`<h1>Sign in</h1>
      <p class="muted">to continue to <strong>${appName}</strong></p>
      ${alert(input.error)} ${signInForm(interactionHref(uid, 'login'), csrf, input.email)}
      <form method="post" action="${interactionHref(uid, 'abort')}">
        ${csrfField(csrf)}
        <div class="actions"><button type="submit" class="secondary">Cancel and return to ${appName}</button></div>
      </form>`,
  );
}

/** One scope of the consent form, in plain words. */
function scopeRow(scope: string, service: string) {
  const about = scopeDescriptions(service)[scope] ?? { title: scope, grants: `The "${scope}" permission.` };
  const id = `scope-${scope}`;
  // openid is what signing in means: it cannot be unchecked (a disabled box is not submitted, hence the hidden field).
  const box =
    scope === 'openid'
      ? html`<input id="${id}" type="checkbox" checked disabled /><input type="hidden" name="scope" value="openid" />`
      : html`<input id="${id}" type="checkbox" name="scope" value="${scope}" checked />`;
  return html`<div class="scope">
    ${box}<label for="${id}">${about.title} <code>${scope}</code><span class="what">${about.grants}</span></label>
  </div>`;
}

export function consentPage(input: {
  uid: string;
  appName: string;
  csrf: string;
  email: string;
  scopes: string[];
}): Page {
  const { uid, appName, csrf } = input;
  return layout(
    'Allow access',
    (service) =>
      html`<h1><strong>${appName}</strong> wants to access your ${service} account</h1>
        <p class="muted">Signed in as ${input.email}. Uncheck anything you do not want to share.</p>
        <form method="post" action="${interactionHref(uid, 'consent')}">
          ${csrfField(csrf)}
          <fieldset>
            <legend>Allow ${appName} to:</legend>
            ${input.scopes.map((scope) => scopeRow(scope, service))}
          </fieldset>
          <p>
            ${appName} can keep this access for up to ${GRANT_TTL_DAYS} days without asking you again: it renews it on
            its own. You can take it back at any time in your <a href="${accountHref()}">account settings</a>.
          </p>
          <div class="actions">
            <button type="submit" name="decision" value="allow">Allow</button>
            <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
          </div>
        </form>`,
  );
}

export function logoutPage(input: { form: string; appName?: string }): Page {
  return layout(
    'Sign out',
    (service) =>
      html`<h1>Sign out of ${service}?</h1>
        ${input.appName ? html`<p class="muted">${input.appName} asked to sign you out.</p>` : ''}
        ${trusted(input.form)}
        <div class="actions">
          <button type="submit" form="op.logoutForm" name="logout" value="yes" autofocus>Yes, sign me out</button>
          <button type="submit" form="op.logoutForm" class="secondary">No, stay signed in</button>
        </div>`,
  );
}

export function loggedOutPage(input: { appName?: string }): Page {
  return layout(
    'Signed out',
    (service) =>
      html`<h1>You are signed out</h1>
        <p>
          ${input.appName ? `You have signed out of ${service} and ${input.appName}.` : `You have signed out of ${service}.`}
        </p>`,
  );
}
