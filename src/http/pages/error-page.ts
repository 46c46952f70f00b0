import type { Response } from 'express';
import { html } from './html.js';
import { layout, sendPage, type Page } from './layout.js';

/** Plain words for the authorization errors a user is most likely to see. */
const ERROR_WORDS: Record<string, string> = {
  invalid_client: 'The app that sent you here is not registered with Roster.',
  invalid_redirect_uri: 'The app asked Roster to send you back to an address it has not registered.',
  invalid_request: 'The app sent Roster a sign-in request it cannot handle.',
  invalid_scope: 'The app asked for a permission Roster does not know.',
  unauthorized_client: 'The app is not allowed to sign you in this way.',
  session_not_found: 'This sign-in request has expired or was started in another browser.',
};

export interface ErrorPageInput {
  /** A code (an OAuth error, or ours such as REQUEST_TIMEOUT), shown as is. */
  error: string;
  /** One line saying what went wrong, when there is more to say than the code. */
  description?: string;
  /** Shown so that a user can quote it and an operator find the log line. */
  requestId?: string;
}

/** The one error page: our routes send it with sendErrorPage, oidc-provider's renderError with sendProviderPage. */
export function errorPage(input: ErrorPageInput): Page {
  const words = ERROR_WORDS[input.error];
  return layout(
    'Something went wrong',
    (service) =>
      html`<h1>Something went wrong</h1>
        <p>${words ?? `${service} could not complete this request.`}</p>
        ${input.description ? html`<p class="muted">${input.description}</p>` : ''}
        <p class="muted">
          Error: <code>${input.error}</code>${input.requestId ? html` · request <code>${input.requestId}</code>` : ''}
        </p>
        <p>Return to the app and start again.</p>`,
  );
}

export function sendErrorPage(res: Response, status: number, input: ErrorPageInput): void {
  sendPage(res, status, errorPage(input));
}
