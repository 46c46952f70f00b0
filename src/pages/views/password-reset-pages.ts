import { html } from '../../http/pages/html.js';
import { accountHref, passwordHref } from '../../http/paths.js';
import { RESET_PATH } from '../../http/reset-link.js';
import { alert, csrfField, layout, type Page } from '../../http/pages/layout.js';

export const FORGOT_PATH = passwordHref('/forgot');

const title = 'Reset your password';

/** The email form; without SMTP, the reason there is none. */
export function forgotPage(input: { csrf?: string; error?: string; email?: string }): Page {
  if (input.csrf === undefined) {
    return layout(
      title,
      html`<h1>${title}</h1>
        ${alert(input.error)}
        <p>Password reset by email is not available here. Ask an administrator for a reset link.</p>
        <p><a href="${accountHref()}">Back to sign-in</a></p>`,
    );
  }
  return layout(
    title,
    html`<h1>${title}</h1>
      <p class="muted">Enter the email address you sign in with. We will mail you a link to choose a new password.</p>
      ${alert(input.error)}
      <form method="post" action="${FORGOT_PATH}">
        ${csrfField(input.csrf)}
        <label for="email">Email</label>
        <input
          id="email"
          name="email"
          type="email"
          autocomplete="username"
          required
          autofocus
          value="${input.email ?? ''}"
        />
        <div class="actions"><button type="submit">Send reset link</button></div>
      </form>`,
  );
}

/** The one answer to a reset request, whether or not the address has an account. */
export function sentPage(): Page {
  return layout(
    'Check your email',
    html`<h1>Check your email</h1>
      <p class="notice" role="status">
        If an account uses that address, a link to reset its password is on its way. It works once, within 30 minutes.
      </p>
      <p><a href="${accountHref()}">Back to sign-in</a></p>`,
  );
}

export function resetPage(input: { token: string; csrf: string; error?: string }): Page {
  return layout(
    'Choose a new password',
    html`<h1>Choose a new password</h1>
      <p class="muted">At least 8 characters. You will be signed out everywhere else.</p>
      ${alert(input.error)}
      <form method="post" action="${RESET_PATH}">
        ${csrfField(input.csrf)}
        <input type="hidden" name="token" value="${input.token}" />
        <label for="password">New password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="new-password"
          required
          minlength="8"
          autofocus
        />
        <label for="confirmation">New password again</label>
        <input
          id="confirmation"
          name="confirmation"
          type="password"
          autocomplete="new-password"
          required
          minlength="8"
        />
        <div class="actions"><button type="submit">Set new password</button></div>
      </form>`,
  );
}

export function invalidLinkPage(): Page {
  return layout(
    'Link not valid',
    html`<h1>This link does not work</h1>
      <p class="alert" role="alert">It has expired, was used already, or is incomplete.</p>
      <p><a href="${FORGOT_PATH}">Ask for a new link</a> · <a href="${accountHref()}">Back to sign-in</a></p>`,
  );
}

export function passwordChangedPage(): Page {
  return layout(
    'Password changed',
    html`<h1>Your password is changed</h1>
      <p class="notice" role="status">Sign in with your new password. Every other session of yours has ended.</p>
      <p><a href="${accountHref()}">Sign in</a></p>`,
  );
}
