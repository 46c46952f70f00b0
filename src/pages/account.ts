import cookieParser from 'cookie-parser';
import express, { type Request, type Response, type Router } from 'express';
import { Conflict, InvalidInput } from '../services/errors.js';
import { ACCOUNT_SESSION_TTL_MS } from '../services/sign-in.js';
import type { ClientAppRow } from '../stores/types.js';
import type { Authorization } from '../services/grant-service.js';
import { formBody } from '../http/form-body.js';
import { originOf } from '../http/origin.js';
import { userActor } from '../services/audit.js';
import { accountHref } from '../http/paths.js';
import { signInRefusalStatus } from '../http/sign-in-refusal.js';
import {
  confirmAppActionPage,
  confirmRevokePage,
  credentialsPage,
  dashboardPage,
  editAppPage,
  type AppAction,
} from './views/account-pages.js';
import { sendErrorPage } from '../http/pages/error-page.js';
import { sendPage } from '../http/pages/layout.js';
import { confirmed, NOTICES, sentence } from './account-forms.js';
import { accountSessions, type AccountSessionDeps, type Signed } from './account-session.js';
import { webhookRouter } from './webhooks.js';
import { personalTokenRouter } from './personal-tokens.js';

interface Deps extends AccountSessionDeps {
  /** Looks for due webhook deliveries now (a test ping or a redelivery was just queued). */
  nudgeWebhooks: () => void;
}

/** Account settings (mounted at PATHS.account): sign in, register and manage apps, revoke authorizations. */
export function accountRouter(deps: Deps): Router {
  const { services, signIn, csrf } = deps;
  const router = express.Router();
  router.use(cookieParser(), formBody('20kb'));
  const sessions = accountSessions(deps, (req, res, who, error) => dashboard(req, res, who, { status: 403, error }));
  const { cookieName, cookieOptions, signedIn, loginForm, viewer, guard, sessionCsrf, reserveChange, ownApp } =
    sessions;

  /** The signed-in user as the audit trail records them, from this request's address. */
  const by = (req: Request, who: Signed) => userActor(who.user, originOf(req));

  const dashboard = async (
    req: Request,
    res: Response,
    who: Signed,
    extra: { status?: number; error?: string; notice?: string; form?: Record<string, string> } = {},
  ) => {
    const [apps, authorizations, activity] = await Promise.all([
      services.apps.listOwned(who.user.id),
      services.grants.listForUser(who.user),
      services.audit.recent(who.user.id),
    ]);
    sendPage(
      res,
      extra.status ?? 200,
      dashboardPage({
        user: who.user,
        apps,
        authorizations,
        activity,
        csrf: sessionCsrf(req, res, who),
        ...extra,
      }),
    );
  };

  router.get('/', async (req: Request, res: Response) => {
    const who = await signedIn(req, res);
    if (!who) return loginForm(req, res);
    const done = typeof req.query.done === 'string' ? NOTICES[req.query.done] : undefined;
    await dashboard(req, res, who, { notice: done });
  });

  router.post('/login', async (req: Request, res: Response) => {
    const body = req.body as Record<string, unknown>;
    const email = typeof body.email === 'string' ? body.email.slice(0, 320) : undefined;
    if (!csrf.verify(req, '')) return loginForm(req, res, 403, 'This form has expired. Sign in again.', email);
    const result = await signIn.attempt(originOf(req), body.email, body.password);
    if (!result.ok) return loginForm(req, res, signInRefusalStatus(res, result), result.message, email);
    const session = await signIn.openSession(result.user);
    res.cookie(cookieName, session, { ...cookieOptions, maxAge: ACCOUNT_SESSION_TTL_MS });
    res.redirect(303, accountHref());
  });

  router.post('/logout', async (req: Request, res: Response) => {
    const who = await guard(req, res);
    if (!who) return;
    await signIn.closeSession(who.session);
    res.clearCookie(cookieName, cookieOptions);
    res.redirect(303, accountHref());
  });

  router.post('/apps', async (req: Request, res: Response) => {
    const who = await guard(req, res);
    if (!who) return;
    const body = req.body as Record<string, unknown>;
    const form = {
      name: typeof body.name === 'string' ? body.name : '',
      redirectUris: typeof body.redirect_uris === 'string' ? body.redirect_uris : '',
      type: body.type === 'public' ? 'public' : 'confidential',
    };
    const change = await reserveChange(res, who, (error) => dashboard(req, res, who, { status: 429, error, form }));
    if (!change) return;
    try {
      const made = await services.apps.create(
        {
          ownerId: who.user.id,
          name: form.name,
          redirectUris: form.redirectUris.split(/\r?\n/),
          confidential: form.type === 'confidential',
        },
        by(req, who),
      );
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
      // Past MAX_APPS_PER_USER is a Conflict: the form stays filled in, for after a delete.
      if (!(err instanceof InvalidInput || err instanceof Conflict)) throw err;
      await change.refused();
      await dashboard(req, res, who, { status: err instanceof Conflict ? 409 : 400, error: sentence(err), form });
    }
  });

  const confirmApp = (req: Request, res: Response, who: Signed, app: ClientAppRow, action: AppAction) =>
    sendPage(res, 200, confirmAppActionPage({ app, action, csrf: sessionCsrf(req, res, who) }));

  /** Each destructive action on an app: GET asks, a POST without `confirm=yes` asks again, a confirmed POST does it. */
  const appAction = (
    action: AppAction,
    perform: (req: Request, res: Response, who: Signed, app: ClientAppRow) => Promise<void>,
  ) => {
    router.get(`/apps/:id/${action}`, async (req: Request, res: Response) => {
      const who = await viewer(req, res);
      const app = who && (await ownApp(req, res, who));
      if (app) confirmApp(req, res, who, app, action);
    });
    router.post(`/apps/:id/${action}`, async (req: Request, res: Response) => {
      const who = await guard(req, res);
      const app = who && (await ownApp(req, res, who));
      if (!app) return;
      if (!confirmed(req)) return confirmApp(req, res, who, app, action);
      await perform(req, res, who, app);
    });
  };

  /** A refused change of an app that is not a form of its own: the dashboard with the reason. */
  const refuseOnDashboard = (req: Request, res: Response, who: Signed) => (error: string) =>
    dashboard(req, res, who, { status: 429, error });

  appAction('secret', async (req, res, who, app) => {
    const change = await reserveChange(res, who, refuseOnDashboard(req, res, who));
    if (!change) return;
    try {
      const clientSecret = await services.apps.rotateClientSecret(app, by(req, who));
      sendPage(res, 200, credentialsPage({ app, title: `New client secret for ${app.name}`, clientSecret }));
    } catch (err) {
      if (!(err instanceof Conflict)) throw err;
      await change.refused();
      await dashboard(req, res, who, { status: 400, error: sentence(err) });
    }
  });

  appAction('token', async (req, res, who, app) => {
    if (!(await reserveChange(res, who, refuseOnDashboard(req, res, who)))) return;
    const appToken = await services.apps.rotateAppToken(app, by(req, who));
    sendPage(res, 200, credentialsPage({ app, title: `New app token for ${app.name}`, appToken }));
  });

  appAction('delete', async (req, res, who, app) => {
    await services.apps.delete(app, by(req, who));
    res.redirect(303, accountHref('?done=deleted'));
  });

  const editForm = (
    req: Request,
    res: Response,
    who: Signed,
    app: ClientAppRow,
    status = 200,
    error?: string,
    redirectUris?: string,
  ) => sendPage(res, status, editAppPage({ app, csrf: sessionCsrf(req, res, who), error, redirectUris }));

  router.get('/apps/:id/edit', async (req: Request, res: Response) => {
    const who = await viewer(req, res);
    const app = who && (await ownApp(req, res, who));
    if (app) editForm(req, res, who, app);
  });

  router.post('/apps/:id/edit', async (req: Request, res: Response) => {
    const who = await guard(req, res);
    const app = who && (await ownApp(req, res, who));
    if (!app) return;
    const typed = (req.body as Record<string, unknown>).redirect_uris;
    const redirectUris = typeof typed === 'string' ? typed : '';
    const change = await reserveChange(res, who, (error) => editForm(req, res, who, app, 429, error, redirectUris));
    if (!change) return;
    try {
      await services.apps.update(app, { redirectUris: redirectUris.split(/\r?\n/) }, by(req, who));
      res.redirect(303, accountHref('?done=edited'));
    } catch (err) {
      if (!(err instanceof InvalidInput)) throw err;
      await change.refused();
      editForm(req, res, who, app, 400, sentence(err), redirectUris);
    }
  });

  /** The user's authorization of the app with this client id; none is a 404 page. */
  const ownAuthorization = async (req: Request, res: Response, who: Signed) => {
    const clientId = String(req.params.clientId);
    const found = (await services.grants.listForUser(who.user)).find((a) => a.clientId === clientId);
    if (!found) sendErrorPage(res, 404, { error: 'not_found', description: 'You have not authorized such an app.' });
    return found;
  };

  const confirmRevoke = (req: Request, res: Response, who: Signed, authorization: Authorization) =>
    sendPage(res, 200, confirmRevokePage({ authorization, csrf: sessionCsrf(req, res, who) }));

  router.get('/authorizations/:clientId/revoke', async (req: Request, res: Response) => {
    const who = await viewer(req, res);
    const authorization = who && (await ownAuthorization(req, res, who));
    if (authorization) confirmRevoke(req, res, who, authorization);
  });

  router.post('/authorizations/:clientId/revoke', async (req: Request, res: Response) => {
    const who = await guard(req, res);
    const authorization = who && (await ownAuthorization(req, res, who));
    if (!authorization) return;
    if (!confirmed(req)) return confirmRevoke(req, res, who, authorization);
    await services.grants.revoke(who.user, authorization.clientId, by(req, who));
    res.redirect(303, accountHref('?done=revoked'));
  });

  // Each app's webhooks, under the same session, body parsing and CSRF tokens.
  router.use(webhookRouter({ services, sessions, nudgeWebhooks: deps.nudgeWebhooks }));
  router.use(personalTokenRouter({ services, sessions }));
  return router;
}
