import cookieParser from 'cookie-parser';
import express, { type Request, type Response, type Router } from 'express';
import type { Csrf } from '../http/csrf.js';
import type { LoginThrottle } from '../services/login-throttle.js';
import type { Stores } from '../stores/stores.js';
import type { UserRow } from '../stores/types.js';
import { InvalidInput, redirectUri, text } from '../services/validation.js';
import { formBody } from '../http/form-body.js';
import { signIn } from '../services/sign-in.js';
import { accountLoginPage, credentialsPage, dashboardPage, type Authorization } from './views/account-pages.js';
import { sendErrorPage } from './views/error-page.js';
import { sendPage } from './views/layout.js';

export const ACCOUNT_SESSION_TTL_MS = 8 * 60 * 60 * 1000;
const MAX_REDIRECT_URIS = 10;

const NOTICES: Record<string, string> = {
  deleted: 'The app was deleted; its tokens no longer work.',
  revoked: 'Access was revoked; that app’s tokens no longer work.',
};

interface Deps {
  stores: Stores;
  csrf: Csrf;
  throttle: LoginThrottle;
  secure: boolean;
}

interface Signed {
  user: UserRow;
  session: string;
}

/** Account settings at /account: sign in, register and manage apps, revoke authorizations. */
export function accountRouter(deps: Deps): Router {
  const { stores, csrf, throttle, secure } = deps;
  const cookieName = secure ? '__Secure-roster.account' : 'roster.account';
  const cookieOptions = { httpOnly: true, sameSite: 'lax' as const, secure, path: '/account' };
  const router = express.Router();
  router.use('/account', cookieParser(), formBody('20kb'));

  const signedIn = async (req: Request, res: Response): Promise<Signed | undefined> => {
    const session = (req.cookies as Record<string, string | undefined>)[cookieName];
    if (!session) return undefined;
    const userId = await stores.accountSessions.userIdFor(session);
    const user = userId === undefined ? undefined : await stores.users.findById(userId);
    if (user?.activationState === 'active') return { user, session };
    // Unknown, expired, or its user may no longer sign in: the session ends here (reactivation does not revive it).
    await stores.accountSessions.delete(session);
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
    const [apps, grants] = await Promise.all([
      stores.apps.listByOwner(who.user.id),
      stores.oidc.grantsOf(who.user.uid),
    ]);
    const scopesByClient = new Map<string, Set<string>>();
    for (const grant of grants) {
      const scopes = scopesByClient.get(grant.clientId) ?? new Set<string>();
      grant.scopes.forEach((s) => scopes.add(s));
      scopesByClient.set(grant.clientId, scopes);
    }
    const names = new Map(
      (await stores.apps.findByClientIds([...scopesByClient.keys()])).map((a) => [a.clientId, a.name]),
    );
    const authorizations: Authorization[] = [...scopesByClient]
      .filter(([clientId]) => names.has(clientId))
      .map(([clientId, scopes]) => ({ clientId, appName: names.get(clientId)!, scopes: [...scopes].sort() }));
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
    const id = String(req.params.id);
    const app = /^\d{1,9}$/.test(id) ? await stores.apps.findOwned(who.user.id, Number(id)) : undefined;
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
    const result = await signIn({ stores, throttle }, req.ip ?? '', body.email, body.password);
    if (!result.ok) {
      if (result.retryAfter) res.set('Retry-After', String(result.retryAfter));
      return loginForm(req, res, result.status, result.message, email);
    }
    const session = await stores.accountSessions.create(result.user.id, ACCOUNT_SESSION_TTL_MS);
    res.cookie(cookieName, session, { ...cookieOptions, maxAge: ACCOUNT_SESSION_TTL_MS });
    res.redirect(303, '/account');
  });

  router.post('/account/logout', async (req: Request, res: Response) => {
    const who = await guard(req, res);
    if (!who) return;
    await stores.accountSessions.delete(who.session);
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
      const name = text(form.name.trim(), 'name', 200);
      const uris = [
        ...new Set(
          form.redirectUris
            .split(/\r?\n/)
            .map((u) => u.trim())
            .filter(Boolean),
        ),
      ];
      if (uris.length === 0) throw new InvalidInput('enter at least one redirect URI');
      if (uris.length > MAX_REDIRECT_URIS) throw new InvalidInput(`at most ${MAX_REDIRECT_URIS} redirect URIs`);
      const made = await stores.apps.create({
        ownerId: who.user.id,
        name,
        redirectUris: uris.map(redirectUri),
        confidential: form.type === 'confidential',
      });
      sendPage(
        res,
        201,
        credentialsPage({
          app: made.app,
          title: `${name} is registered`,
          clientSecret: made.clientSecret,
          appToken: made.appToken,
        }),
      );
    } catch (err) {
      if (!(err instanceof InvalidInput)) throw err;
      const message = err.message.charAt(0).toUpperCase() + err.message.slice(1) + '.';
      await dashboard(req, res, who, { status: 400, error: message, form });
    }
  });

  router.post('/account/apps/:id/secret', async (req: Request, res: Response) => {
    const who = await guard(req, res);
    const app = who && (await ownApp(req, res, who));
    if (!app) return;
    if (!app.clientSecretHash) {
      return dashboard(req, res, who, { status: 400, error: 'A public app has no client secret.' });
    }
    const clientSecret = await stores.apps.rotateClientSecret(app.id);
    sendPage(res, 200, credentialsPage({ app, title: `New client secret for ${app.name}`, clientSecret }));
  });

  router.post('/account/apps/:id/token', async (req: Request, res: Response) => {
    const who = await guard(req, res);
    const app = who && (await ownApp(req, res, who));
    if (!app) return;
    const appToken = await stores.apps.rotateAppToken(app.id);
    sendPage(res, 200, credentialsPage({ app, title: `New app token for ${app.name}`, appToken }));
  });

  router.post('/account/apps/:id/delete', async (req: Request, res: Response) => {
    const who = await guard(req, res);
    const app = who && (await ownApp(req, res, who));
    if (!app) return;
    await stores.apps.delete(app.id);
    res.redirect(303, '/account?done=deleted');
  });

  router.post('/account/authorizations/:clientId/revoke', async (req: Request, res: Response) => {
    const who = await guard(req, res);
    if (!who) return;
    await stores.oidc.revokeGrants(who.user.uid, String(req.params.clientId));
    res.redirect(303, '/account?done=revoked');
  });

  return router;
}
