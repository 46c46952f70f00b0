import type { Response } from 'express';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { html, type SafeHtml } from './html.js';
import { NO_SCRIPT_POLICY } from './page-headers.js';

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

/** Never cached, since pages carry CSRF tokens and one-time secrets; they run no script. */
const PAGE_HEADERS = { 'Cache-Control': 'no-store', 'Content-Security-Policy': NO_SCRIPT_POLICY };

/** Sends a rendered page. */
export function sendPage(res: Response, status: number, body: string): void {
  res.status(status).set(PAGE_HEADERS).type('html').send(body);
}

/** Sends a rendered page from one of oidc-provider's rendering hooks (a Koa context). */
export function sendProviderPage(ctx: KoaContextWithOIDC, body: string): void {
  ctx.set(PAGE_HEADERS);
  ctx.type = 'html';
  ctx.body = body;
}

/** The email and password form of the login page and of the account pages, with the way to a reset. */
export const signInForm = (action: string, csrf: string, email: string | undefined): SafeHtml =>
  html`<form method="post" action="${action}">
      ${csrfField(csrf)}
      <label for="email">Email</label>
      <input id="email" name="email" type="email" autocomplete="username" required autofocus value="${email ?? ''}" />
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password" required />
      <div class="actions"><button type="submit">Sign in</button></div>
    </form>
    <p><a href="/account/password/forgot">Forgot your password?</a></p>`;
