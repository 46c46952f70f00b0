import cookieParser from 'cookie-parser';
import express, { type Request, type Response, type Router } from 'express';
import type Provider from 'oidc-provider';
import type { Csrf } from '../http/csrf.js';
import type { Services } from '../services/services.js';
import type { SignIn } from '../services/sign-in.js';
import { formBody } from '../http/form-body.js';
import { originOf } from '../http/origin.js';
import { userActor } from '../services/audit.js';
import { interactionHref } from '../http/paths.js';
import { signInRefusalStatus } from '../http/sign-in-refusal.js';
import { sendErrorPage } from '../http/pages/error-page.js';
import { consentPage, loginPage } from './views/interaction-pages.js';
import { sendPage } from '../http/pages/layout.js';

interface Deps {
  /** The current provider (it is rebuilt when signing keys change). */
  identity: { readonly provider: Provider };
  services: Services;
  signIn: SignIn;
  csrf: Csrf;
}

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

const FORM_EXPIRED = 'This form has expired. Sign in again.';

/** The login and consent pages oidc-provider sends users to (mounted at PATHS.interaction, then /:uid). */
export function interactionRouter(deps: Deps): Router {
  const { identity, services, signIn, csrf } = deps;
  const router = express.Router();
  router.use(cookieParser());
  const form = formBody('10kb');

  /** The interaction bound to this browser, or an error page when it is gone or not this browser's. */
  const details = async (req: Request, res: Response): Promise<Details | undefined> => {
    try {
      const found = await identity.provider.interactionDetails(req, res);
      if (found.uid !== req.params.uid) throw new Error('interaction mismatch');
      return found;
    } catch {
      sendErrorPage(res, 400, { error: 'session_not_found' });
      return undefined;
    }
  };

  const appName = async (clientId: unknown) => (await services.apps.nameOf(String(clientId))) ?? 'an app';

  const render = async (req: Request, res: Response, found: Details, status = 200, error?: string, email?: string) => {
    const uid = found.uid;
    const token = csrf.issue(req, res, uid, interactionHref(uid));
    const name = await appName(found.params.client_id);
    if (found.prompt.name === 'login') {
      return sendPage(res, status, loginPage({ uid, appName: name, csrf: token, error, email }));
    }
    const user = found.session?.accountId ? await services.users.findByKey(found.session.accountId) : undefined;
    const scopes = (found.prompt.details.missingOIDCScope as string[] | undefined) ?? [];
    return sendPage(res, status, consentPage({ uid, appName: name, csrf: token, email: user?.email ?? '', scopes }));
  };

  /** Checks the CSRF field and the prompt; renders the answer itself when either is wrong. */
  const accept = async (req: Request, res: Response, prompt?: string): Promise<Details | undefined> => {
    const found = await details(req, res);
    if (!found) return undefined;
    if (!csrf.verify(req, found.uid)) {
      await render(req, res, found, 403, FORM_EXPIRED);
      return undefined;
    }
    if (prompt && found.prompt.name !== prompt) {
      await render(req, res, found, 400, 'That form is not the current step of this sign-in; continue here.');
      return undefined;
    }
    return found;
  };

  router.get('/:uid', async (req, res) => {
    const found = await details(req, res);
    if (found) await render(req, res, found);
  });

  router.post('/:uid/login', form, async (req, res) => {
    const found = await accept(req, res, 'login');
    if (!found) return;
    const body = req.body as Record<string, unknown>;
    const clientId = String(found.params.client_id);
    const result = await signIn.attempt(originOf(req), body.email, body.password, clientId);
    if (!result.ok) {
      const email = typeof body.email === 'string' ? body.email.slice(0, 320) : undefined;
      return render(req, res, found, signInRefusalStatus(res, result), result.message, email);
    }
    await identity.provider.interactionFinished(
      req,
      res,
      { login: { accountId: result.user.uid } },
      { mergeWithLastSubmission: false },
    );
  });

  router.post('/:uid/consent', form, async (req, res) => {
    const found = await accept(req, res, 'consent');
    if (!found) return;
    const body = req.body as Record<string, unknown>;
    const missing = (found.prompt.details.missingOIDCScope as string[] | undefined) ?? [];
    const chosen = new Set([body.scope].flat().filter((s): s is string => typeof s === 'string'));
    // openid is the sign-in itself: granted whenever it was asked for.
    const granted = missing.filter((s) => s === 'openid' || chosen.has(s));
    const denied = missing.filter((s) => !granted.includes(s));
    const { grantId } = found;
    const clientId = String(found.params.client_id);
    const user = await services.users.findByKey(found.session!.accountId);
    const actor = user ? userActor(user, originOf(req)) : { type: 'anonymous' as const, ...originOf(req) };
    if (body.decision !== 'allow' || (granted.length === 0 && !grantId)) {
      await services.audit.record({
        action: 'consent.denied',
        actor,
        clientId,
        subject: missing.join(' '),
        outcome: 'failure',
      });
      return identity.provider.interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: 'The user did not allow access.' },
        { mergeWithLastSubmission: false },
      );
    }
    const grant = grantId
      ? await identity.provider.Grant.find(grantId)
      : new identity.provider.Grant({ accountId: found.session!.accountId, clientId });
    if (!grant) return sendErrorPage(res, 400, { error: 'session_not_found' });
    if (granted.length) grant.addOIDCScope(granted.join(' '));
    // Rejected, not merely left out: otherwise the provider asks again and consent loops.
    if (denied.length) grant.rejectOIDCScope(denied.join(' '));
    const savedId = await grant.save();
    // After the save: oidc-provider writes the grant through its adapter, outside any transaction of ours.
    await services.audit.record({ action: 'consent.granted', actor, clientId, subject: granted.join(' ') || null });
    await identity.provider.interactionFinished(
      req,
      res,
      { consent: { grantId: savedId } },
      { mergeWithLastSubmission: true },
    );
  });

  router.post('/:uid/abort', form, async (req, res) => {
    const found = await accept(req, res);
    if (!found) return;
    await identity.provider.interactionFinished(
      req,
      res,
      { error: 'access_denied', error_description: 'The user cancelled the sign-in.' },
      { mergeWithLastSubmission: false },
    );
  });

  return router;
}
