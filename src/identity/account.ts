import cookieParser from 'cookie-parser';
import express, { type Request, type Response, type Router } from 'express';
import type { Csrf } from '../http/csrf.js';
import { Conflict, InvalidInput, type DomainError } from '../services/errors.js';
import type { Services } from '../services/services.js';
import { ACCOUNT_SESSION_TTL_MS, type SignIn } from '../services/sign-in.js';
import type { UserRow } from '../stores/types.js';
import { formBody } from '../http/form-body.js';
import { accountLoginPage, credentialsPage, dashboardPage } from './views/account-pages.js';
import { sendErrorPage } from '../http/pages/error-page.js';
import { sendPage } from '../http/pages/layout.js';

const NOTICES: Record<string, string> = {
  deleted: 'The app was deleted; its tokens no longer work.',
  revoked: 'Access was revoked; that app’s tokens no longer work.',
};

interface Deps {
  services: Services;
  signIn: SignIn;
  csrf: Csrf;
  secure: boolean;
}

/** The form's names for the services' fields. */
const FIELD_LABELS: Record<string, string> = { name: 'Name', redirect_uri: 'Redirect URI' };

/** A refusal as the page shows it: one sentence, the field by its label on the form. */
const sentence = (err: DomainError) => {
  const text =
    err instanceof InvalidInput && err.field ? `${FIELD_LABELS[err.field] ?? err.field} ${err.reason}` : err.message;
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
};

interface Signed {
  user: UserRow;
  session: string;
}

/** Account settings at /account: sign in, register and manage apps, revoke authorizations. */
export function accountRouter(deps: Deps): Router {
  const { services, signIn, csrf, secure } = deps;
  const cookieName = secure ? '__Secure-roster.account' : 'roster.account';
  const cookieOptions = { httpOnly: true, sameSite: 'lax' as const, secure, path: '/account' };
  const router = express.Router();
  router.use('/account', cookieParser(), formBody('20kb'));

  const signedIn = async (req: Request, res: Response): Promise<Signed | undefined> => {
    const session = (req.cookies as Record<string, string | undefined>)[cookieName];
    if (!session) return undefined;
    const user = await signIn.sessionUser(session);
    if (user) return { user, session };
    res.clearCookie(cookieName, cookieOptions);
    return undefined;
  };

  const loginForm = (req: Request, res: Response, status = 200, error?: string, email?: string) =>
    sendPage(res, status, accountLoginPage({ csrf: csrf.issue(req, res, '', '/account'), error, email }));

  const dashboard = async (
    req: Request,
    res: Response,
    who: Signed,
    extra: { status?: number; error?: string; notice?: string; form?: Record<string, string> } = {},
  ) => {
    const [apps, authorizations] = await Promise.all([
      services.apps.listOwned(who.user.id),
      services.grants.listForUser(who.user),
    ]);
    sendPage(
      res,
      extra.status ?? 200,
      dashboardPage({
        user: who.user,
        apps,
        authorizations,
        csrf: csrf.issue(req, res, who.session, '/account'),
        ...extra,
      }),
    );
  };

  /** Signed in and a valid CSRF field, or the answer has been sent already. */
  const guard = async (req: Request, res: Response): Promise<Signed | undefined> => {
    const who = await signedIn(req, res);
    if (!who) {
      loginForm(req, res, 401, 'Your session has ended. Sign in again.');
      return undefined;
    }
    if (!csrf.verify(req, who.session)) {
      await dashboard(req, res, who, { status: 403, error: 'This form has expired. Try again.' });
      return undefined;
    }
    return who;
  };

  /** The signed-in user's own app; anyone else's (or none) is the same 404. */
  const ownApp = async (req: Request, res: Response, who: Signed) => {
    const app = await services.apps.findOwned(who.user.id, String(req.params.id));
    if (!app) sendErrorPage(res, 404, { error: 'not_found', description: 'There is no such app in your account.' });
    return app;
  };

  router.get('/account', async (req: Request, res: Response) => {
    const who = await signedIn(req, res);
    if (!who) return loginForm(req, res);
    const done = typeof req.query.done === 'string' ? NOTICES[req.query.done] : undefined;
    await dashboard(req, res, who, { notice: done });
  });

  router.post('/account/login', async (req: Request, res: Response) => {
    const body = req.body as Record<string, unknown>;
    const email = typeof body.email === 'string' ? body.email.slice(0, 320) : undefined;
    if (!csrf.verify(req, '')) return loginForm(req, res, 403, 'This form has expired. Sign in again.', email);
    const result = await signIn.attempt(req.ip ?? '', body.email, body.password);
    if (!result.ok) {
      if (result.retryAfter) res.set('Retry-After', String(result.retryAfter));
      return loginForm(req, res, result.status, result.message, email);
    }
    const session = await signIn.openSession(result.user);
    res.cookie(cookieName, session, { ...cookieOptions, maxAge: ACCOUNT_SESSION_TTL_MS });
    res.redirect(303, '/account');
  });

  router.post('/account/logout', async (req: Request, res: Response) => {
    const who = await guard(req, res);
    if (!who) return;
    await signIn.closeSession(who.session);
    res.clearCookie(cookieName, cookieOptions);
    res.redirect(303, '/account');
  });

  router.post('/account/apps', async (req: Request, res: Response) => {
    const who = await guard(req, res);
    if (!who) return;
    const body = req.body as Record<string, unknown>;
    const form = {
      name: typeof body.name === 'string' ? body.name : '',
      redirectUris: typeof body.redirect_uris === 'string' ? body.redirect_uris : '',
      type: body.type === 'public' ? 'public' : 'confidential',
    };
    try {
      const made = await services.apps.create({
        ownerId: who.user.id,
        name: form.name,
        redirectUris: form.redirectUris.split(/\r?\n/),
        confidential: form.type === 'confidential',
      });
      sendPage(
        res,
        201,
        credentialsPage({
          app: made.app,
          title: `${made.app.name} is registered`,
          clientSecret: made.clientSecret,
          appToken: made.appToken,
        }),
      );
    } catch (err) {
      if (!(err instanceof InvalidInput)) throw err;
      await dashboard(req, res, who, { status: 400, error: sentence(err), form });
    }
  });

  router.post('/account/apps/:id/secret', async (req: Request, res: Response) => {
    const who = await guard(req, res);
    const app = who && (await ownApp(req, res, who));
    if (!app) return;
    try {
      const clientSecret = await services.apps.rotateClientSecret(app);
      sendPage(res, 200, credentialsPage({ app, title: `New client secret for ${app.name}`, clientSecret }));
    } catch (err) {
      if (!(err instanceof Conflict)) throw err;
      await dashboard(req, res, who, { status: 400, error: sentence(err) });
    }
  });

  router.post('/account/apps/:id/token', async (req: Request, res: Response) => {
    const who = await guard(req, res);
    const app = who && (await ownApp(req, res, who));
    if (!app) return;
    const appToken = await services.apps.rotateAppToken(app);
    sendPage(res, 200, credentialsPage({ app, title: `New app token for ${app.name}`, appToken }));
  });

  router.post('/account/apps/:id/delete', async (req: Request, res: Response) => {
    const who = await guard(req, res);
    const app = who && (await ownApp(req, res, who));
    if (!app) return;
    await services.apps.delete(app);
    res.redirect(303, '/account?done=deleted');
  });

  router.post('/account/authorizations/:clientId/revoke', async (req: Request, res: Response) => {
    const who = await guard(req, res);
    if (!who) return;
    await services.grants.revoke(who.user, String(req.params.clientId));
    res.redirect(303, '/account?done=revoked');
  });

  return router;
}
