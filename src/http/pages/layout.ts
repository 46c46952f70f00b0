import type { Response } from 'express';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { serviceNameOf } from '../locals.js';
import { html, type SafeHtml } from './html.js';
import { passwordHref, PATHS } from '../paths.js';
import { NO_SCRIPT_POLICY } from './page-headers.js';

/** A page waiting for the service's name (SERVICE_NAME), which its frame and some of its words show. */
export type Page = (service: string) => string;

/** A page's body: fixed markup, or markup that names the service. */
export type Body = SafeHtml | ((service: string) => SafeHtml);

/** The frame of every page Roster renders: no scripts, one stylesheet; `wide` for the account dashboard. */
export function layout(title: string, body: Body, options: { wide?: boolean } = {}): Page {
  return (service) =>
    html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · ${service}</title>
        <link rel="stylesheet" href="${PATHS.stylesheet}" />
      </head>
      <body>
        <header class="brand">
          <span class="logo" aria-hidden="true">${[...service][0]!.toUpperCase()}</span>
          <span class="name">${service}</span>
        </header>
        <main${options.wide ? html` class="wide"` : ''}>${typeof body === 'function' ? body(service) : body}</main>
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
export function sendPage(res: Response, status: number, page: Page): void {
  res
    .status(status)
    .set(PAGE_HEADERS)
    .type('html')
    .send(page(serviceNameOf(res)));
}

/** Sends a rendered page from one of oidc-provider's rendering hooks (a Koa context). */
export function sendProviderPage(ctx: KoaContextWithOIDC, page: Page): void {
  ctx.set(PAGE_HEADERS);
  ctx.type = 'html';
  ctx.body = page(serviceNameOf(ctx.res));
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
    <p><a href="${passwordHref('/forgot')}">Forgot your password?</a></p>`;
