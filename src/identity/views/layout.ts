import type { Response } from 'express';
import { html, type SafeHtml } from './html.js';

export const STYLESHEET_PATH = '/assets/roster.css';

/** The frame of every page Roster renders: no scripts, one stylesheet. */
export function layout(title: string, body: SafeHtml): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Roster</title>
        <link rel="stylesheet" href="${STYLESHEET_PATH}" />
      </head>
      <body>
        <header class="brand"><span class="logo" aria-hidden="true">R</span> Roster</header>
        <main>${body}</main>
      </body>
    </html> `.value;
}

/** A hidden CSRF field for a form. */
export const csrfField = (token: string): SafeHtml => html`<input type="hidden" name="_csrf" value="${token}" />`;

export const alert = (message: string | undefined): SafeHtml | string =>
  message ? html`<p class="alert" role="alert">${message}</p>` : '';

/** Sends a rendered page: never cached, since pages carry CSRF tokens and one-time secrets. */
export function sendPage(res: Response, status: number, body: string): void {
  res.status(status).set('Cache-Control', 'no-store').type('html').send(body);
}

/** The email and password form of the login page and of the account pages. */
export const signInForm = (action: string, csrf: string, email: string | undefined): SafeHtml =>
  html`<form method="post" action="${action}">
    ${csrfField(csrf)}
    <label for="email">Email</label>
    <input id="email" name="email" type="email" autocomplete="username" required autofocus value="${email ?? ''}" />
    <label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password" required />
    <div class="actions"><button type="submit">Sign in</button></div>
  </form>`;
