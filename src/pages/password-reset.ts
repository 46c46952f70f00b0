import { originOf } from '../http/origin.js';
import cookieParser from 'cookie-parser';
import express, { type Request, type Response, type Router } from 'express';
import type { Csrf } from '../http/csrf.js';
import { formBody } from '../http/form-body.js';
import { sendPage } from '../http/pages/layout.js';
import { InvalidInput } from '../services/errors.js';
import type { PasswordResetService } from '../services/password-reset-service.js';
import { PATHS } from '../http/paths.js';

import { forgotPage, invalidLinkPage, passwordChangedPage, resetPage, sentPage } from './views/password-reset-pages.js';

const COOKIE_PATH = PATHS.passwordReset;
const FORM_EXPIRED = 'This form has expired. Try again.';

/** The CSRF scope of a reset form: the link's public id, so a form only submits for its own link. */
const linkScope = (token: string) => `reset:${token.split('.')[0]}`;

const field = (body: unknown, name: string) => {
  const value = (body as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
};

/** "Forgot your password?" (mounted at PATHS.passwordReset): ask for a link by email, then choose a new password with it. */
export function passwordResetRouter(deps: { resets: PasswordResetService; csrf: Csrf }): Router {
  const { resets, csrf } = deps;
  const router = express.Router();
  router.use(cookieParser(), formBody('10kb'));

  const forgot = (req: Request, res: Response, status = 200, error?: string, email?: string) =>
    sendPage(
      res,
      status,
      forgotPage({ csrf: resets.byEmail ? csrf.issue(req, res, '', COOKIE_PATH) : undefined, error, email }),
    );

  const resetForm = (req: Request, res: Response, token: string, status = 200, error?: string) =>
    sendPage(res, status, resetPage({ token, csrf: csrf.issue(req, res, linkScope(token), COOKIE_PATH), error }));

  router.get('/forgot', (req, res) => forgot(req, res));

  router.post('/forgot', async (req, res) => {
    const email = field(req.body, 'email')?.slice(0, 320);
    if (!resets.byEmail) return forgot(req, res, 503);
    if (!csrf.verify(req, '')) return forgot(req, res, 403, FORM_EXPIRED, email);
    if (!email?.trim()) return forgot(req, res, 400, 'Enter your email address.');
    const answer = await resets.request(originOf(req), email);
    if (answer.status === 'throttled') {
      const minutes = Math.ceil(answer.retryAfter / 60);
      res.set('Retry-After', String(answer.retryAfter));
      return forgot(
        req,
        res,
        429,
        `Too many reset requests. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
      );
    }
    sendPage(res, 200, sentPage());
  });

  router.get('/reset', async (req, res) => {
    const token = req.query.token;
    const user = await resets.check(token);
    if (!user) return sendPage(res, 400, invalidLinkPage());
    resetForm(req, res, token as string);
  });

  router.post('/reset', async (req, res) => {
    const token = field(req.body, 'token');
    if (!token || !(await resets.check(token))) return sendPage(res, 400, invalidLinkPage());
    if (!csrf.verify(req, linkScope(token))) return resetForm(req, res, token, 403, FORM_EXPIRED);
    try {
      const user = await resets.complete(
        token,
        field(req.body, 'password') ?? '',
        field(req.body, 'confirmation') ?? '',
        originOf(req),
      );
      if (!user) return sendPage(res, 400, invalidLinkPage());
    } catch (err) {
      if (!(err instanceof InvalidInput)) throw err;
      const message = err.field === 'confirmation' ? 'The two passwords differ.' : `The password ${err.reason}.`;
      return resetForm(req, res, token, 400, message);
    }
    sendPage(res, 200, passwordChangedPage());
  });

  return router;
}
