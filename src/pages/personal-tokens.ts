import express, { type Request, type Response, type Router } from 'express';
import { accountTokensHref } from '../http/paths.js';
import { sendErrorPage } from '../http/pages/error-page.js';
import { sendPage } from '../http/pages/layout.js';
import { originOf } from '../http/origin.js';
import { userActor } from '../services/audit.js';
import { Conflict, InvalidInput, NotFound } from '../services/errors.js';
import { MAX_PERSONAL_TOKENS, parseDuration } from '../services/personal-token-service.js';
import type { Services } from '../services/services.js';
import type { PersonalTokenRow } from '../stores/personal-token-store.js';
import { confirmed, sentence } from './account-forms.js';
import type { AccountSessions, Signed } from './account-session.js';
import {
  DEFAULT_EXPIRY,
  confirmDeleteTokenPage,
  tokenCreatedPage,
  tokensPage,
  type TokenForm,
} from './views/personal-token-pages.js';

/** The form's fields as sent: a field sent twice (or not a string) counts as empty. */
function tokenForm(body: Record<string, unknown>): TokenForm {
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  const scopes = Array.isArray(body.scope) ? body.scope.map(text) : body.scope === undefined ? [] : [text(body.scope)];
  // Left out, the default; sent twice (not one string), refused by the service as no duration.
  const expiresIn = body.expires_in === undefined ? DEFAULT_EXPIRY : text(body.expires_in);
  return { name: text(body.name), scopes, expiresIn };
}

const NOTICES: Record<string, string> = { deleted: 'The token was deleted; it no longer works.' };

/** A token id from the path, or NaN (which no token has). */
const idIn = (raw: unknown) => (typeof raw === 'string' && /^[1-9]\d{0,9}$/.test(raw) ? Number(raw) : NaN);

/**
 * A user's personal access tokens at the account pages (mounted inside the account router, under its
 * session and CSRF tokens): the list, the form that makes one (shown once), and deleting one. Making one
 * counts as an app change (the same hourly throttle); anyone else's token is the same 404 as none.
 */
export function personalTokenRouter({ services, sessions }: { services: Services; sessions: AccountSessions }): Router {
  const { viewer, guard, sessionCsrf, reserveChange } = sessions;
  const router = express.Router();

  const listPage = async (
    req: Request,
    res: Response,
    who: Signed,
    extra: { status?: number; error?: string; notice?: string; form?: TokenForm } = {},
  ) => {
    const tokens = await services.personalTokens.list(who.user.id);
    sendPage(
      res,
      extra.status ?? 200,
      tokensPage({ tokens, csrf: sessionCsrf(req, res, who), max: MAX_PERSONAL_TOKENS, ...extra }),
    );
  };

  router.get('/tokens', async (req: Request, res: Response) => {
    const who = await viewer(req, res);
    const done = typeof req.query.done === 'string' ? NOTICES[req.query.done] : undefined;
    if (who) await listPage(req, res, who, { notice: done });
  });

  router.post('/tokens', async (req: Request, res: Response) => {
    const who = await guard(req, res);
    if (!who) return;
    const form = tokenForm(req.body as Record<string, unknown>);
    const refuse = (status: number) => (error: string) => listPage(req, res, who, { status, error, form });
    const change = await reserveChange(res, who, refuse(429));
    if (!change) return;
    try {
      const made = await services.personalTokens.create(
        who.user,
        { name: form.name, scopes: form.scopes, expiresIn: parseDuration(form.expiresIn) },
        userActor(who.user, originOf(req)),
      );
      sendPage(res, 201, tokenCreatedPage(made));
    } catch (err) {
      if (!(err instanceof InvalidInput || err instanceof Conflict)) throw err;
      await change.refused();
      await refuse(err instanceof Conflict ? 409 : 400)(sentence(err));
    }
  });

  /** The signed-in user's token by the id in the path; anyone else's (or none) is the same 404. */
  const ownToken = async (req: Request, res: Response, who: Signed): Promise<PersonalTokenRow | undefined> => {
    const id = idIn(req.params.id);
    const row = (await services.personalTokens.list(who.user.id)).find((t) => t.id === id);
    if (!row) {
      sendErrorPage(res, 404, { error: 'not_found', description: 'There is no such token in your account.' });
    }
    return row;
  };

  router.get('/tokens/:id/delete', async (req: Request, res: Response) => {
    const who = await viewer(req, res);
    const row = who && (await ownToken(req, res, who));
    if (row) sendPage(res, 200, confirmDeleteTokenPage({ row, csrf: sessionCsrf(req, res, who) }));
  });

  router.post('/tokens/:id/delete', async (req: Request, res: Response) => {
    const who = await guard(req, res);
    const row = who && (await ownToken(req, res, who));
    if (!row) return;
    if (!confirmed(req)) return sendPage(res, 200, confirmDeleteTokenPage({ row, csrf: sessionCsrf(req, res, who) }));
    try {
      await services.personalTokens.revoke(row.id, who.user.id, userActor(who.user, originOf(req)));
    } catch (err) {
      // Deleted meanwhile (another tab): done all the same.
      if (!(err instanceof NotFound)) throw err;
    }
    res.redirect(303, accountTokensHref('?done=deleted'));
  });

  return router;
}
