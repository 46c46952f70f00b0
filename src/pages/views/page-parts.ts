import { html, type SafeHtml } from '../../http/pages/html.js';
import { accountHref } from '../../http/paths.js';
import { csrfField, layout, type Page } from '../../http/pages/layout.js';

// The pieces the account pages share: buttons, notices and the confirmation of a destructive action.

/** A one-button form that posts with the session's CSRF token (an action that needs no confirmation). */
export const postButton = (action: string, csrf: string, label: string | SafeHtml, kind = 'secondary') =>
  html`<form class="inline" method="post" action="${action}">
    ${csrfField(csrf)}<button type="submit" class="${kind}">${label}</button>
  </form>`;

/** A link that looks like a button: the first step of an action, a page to confirm or fill in. */
export const linkButton = (href: string, label: string | SafeHtml, kind = 'secondary') =>
  html`<a class="button ${kind}" href="${href}">${label}</a>`;

/** What an action just did, shown once after its redirect. */
export const notice = (message: string | undefined): SafeHtml | string =>
  message ? html`<p class="notice" role="status">${message}</p>` : '';

/** The confirmation step of a destructive action: what will be lost, and the form that really does it. */
export function confirmPage(input: {
  title: string;
  loses: (service: string) => SafeHtml;
  action: string;
  button: string;
  csrf: string;
  /** Where Cancel goes: the account settings unless said. */
  back?: string;
}): Page {
  return layout(
    input.title,
    (service) =>
      html`<h1>${input.title}</h1>
        <p class="alert" role="alert">${input.loses(service)}</p>
        <form method="post" action="${input.action}">
          ${csrfField(input.csrf)}<input type="hidden" name="confirm" value="yes" />
          <div class="actions">
            <button type="submit" class="danger">${input.button}</button>
            ${linkButton(input.back ?? accountHref(), 'Cancel')}
          </div>
        </form>`,
  );
}
