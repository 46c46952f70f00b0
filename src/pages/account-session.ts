import type { Request, Response } from 'express';
import type { Csrf } from '../http/csrf.js';
import { PATHS } from '../http/paths.js';
import { sendErrorPage } from '../http/pages/error-page.js';
import { sendPage } from '../http/pages/layout.js';
import { appChangeRefusal, type AppChangeThrottle } from '../services/app-change-throttle.js';
import type { Services } from '../services/services.js';
import type { SignIn } from '../services/sign-in.js';
import type { UserRow } from '../stores/types.js';
import { accountLoginPage } from './views/account-pages.js';

// The account session as every account page reads it: who is signed in, their forms' CSRF tokens, their
// app change budget and their own apps. Shared by the account router and the routers it mounts.

/** A signed-in user and their account session (the id the session's CSRF tokens are bound to). */
export interface Signed {
  user: UserRow;
  session: string;
}

export interface AccountSessionDeps {
  services: Services;
  signIn: SignIn;
  csrf: Csrf;
  secure: boolean;
  /** Counts each user's app changes at these pages (in the database, shared by every instance). */
  appChanges: AppChangeThrottle;
}

/** Answers a form posted with an expired or foreign CSRF token (the account router shows the dashboard). */
export type ExpiredForm = (req: Request, res: Response, who: Signed, error: string) => Promise<void> | void;

export function accountSessions(deps: AccountSessionDeps, expired: ExpiredForm) {
  const { services, signIn, csrf, secure, appChanges } = deps;
  const cookieName = secure ? '__Secure-roster.account' : 'roster.account';
  const cookieOptions = { httpOnly: true, sameSite: 'lax' as const, secure, path: PATHS.account };

  const signedIn = async (req: Request, res: Response): Promise<Signed | undefined> => {
    const session = (req.cookies as Record<string, string | undefined>)[cookieName];
    if (!session) return undefined;
    const user = await signIn.sessionUser(session);
    if (user) return { user, session };
    res.clearCookie(cookieName, cookieOptions);
    return undefined;
  };

  const loginForm = (req: Request, res: Response, status = 200, error?: string, email?: string) =>
    sendPage(res, status, accountLoginPage({ csrf: csrf.issue(req, res, '', PATHS.account), error, email }));

  /** Signed in, or the sign-in form has been sent (for a GET: nothing was submitted, so no CSRF to check). */
  const viewer = async (req: Request, res: Response): Promise<Signed | undefined> => {
    const who = await signedIn(req, res);
    if (!who) loginForm(req, res, 401, 'Your session has ended. Sign in again.');
    return who;
  };

  return {
    cookieName,
    cookieOptions,
    signedIn,
    loginForm,
    viewer,

    /** A form token bound to this account session. */
    sessionCsrf: (req: Request, res: Response, who: Signed) => csrf.issue(req, res, who.session, PATHS.account),

    /** Signed in and a valid CSRF field, or the answer has been sent already. */
    guard: async (req: Request, res: Response): Promise<Signed | undefined> => {
      const who = await viewer(req, res);
      if (who && !csrf.verify(req, who.session)) {
        await expired(req, res, who, 'This form has expired. Try again.');
        return undefined;
      }
      return who;
    },

    /**
     * Counts one app change by the user before it is made: the reservation (to give back when the service
     * refuses the input), or undefined once `refuse` has answered 429 with Retry-After and a one-line reason.
     */
    reserveChange: async (res: Response, who: Signed, refuse: (reason: string) => Promise<void> | void) => {
      const change = await appChanges.reserve(who.user.id);
      if (change.allowed) return change;
      res.set('Retry-After', String(change.retryAfter));
      await refuse(appChangeRefusal(change.retryAfter));
      return undefined;
    },

    /** The signed-in user's own app, by the id in the path; anyone else's (or none) is the same 404. */
    ownApp: async (req: Request, res: Response, who: Signed) => {
      const app = await services.apps.findOwned(who.user.id, String(req.params.id));
      if (!app) sendErrorPage(res, 404, { error: 'not_found', description: 'There is no such app in your account.' });
      return app;
    },
  };
}

export type AccountSessions = ReturnType<typeof accountSessions>;
