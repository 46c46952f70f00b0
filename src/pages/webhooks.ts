import express, { type Request, type Response, type Router } from 'express';
import { appWebhooksHref, webhookHref } from '../http/paths.js';
import { sendErrorPage } from '../http/pages/error-page.js';
import { sendPage } from '../http/pages/layout.js';
import { Conflict, InvalidInput, NotFound } from '../services/errors.js';
import { originOf } from '../http/origin.js';
import { userActor } from '../services/audit.js';
import type { Services } from '../services/services.js';
import { RECENT, type WebhookView } from '../services/webhook-service.js';
import type { ClientAppRow } from '../stores/types.js';
import { confirmed, sentence } from './account-forms.js';
import type { AccountSessions, Signed } from './account-session.js';
import { confirmDeleteWebhookPage, webhookSecretPage, webhooksPage, type WebhookForm } from './views/webhook-pages.js';
import { webhookPage } from './views/webhook-deliveries-page.js';

interface Deps {
  services: Services;
  sessions: AccountSessions;
  /** Looks for due deliveries now: a test ping or a redelivery was just queued. */
  nudgeWebhooks: () => void;
}

/** A webhook of the signed-in user's, with its app. */
interface Owned {
  app: ClientAppRow;
  webhook: WebhookView;
}

/** Notices shown after an action, by the `done` query parameter. */
const NOTICES: Record<string, string> = {
  pinged: 'A test ping (webhook.ping) was queued and is sent at once: reload this page to see how it went.',
  redelivered: 'The delivery was queued again, with the same webhook-id: reload this page to see how it went.',
  enabled: 'The webhook was enabled; the deliveries waiting for it are sent again.',
  deleted: 'The webhook was deleted; nothing more is sent to it.',
};
const noticeOf = (req: Request) => (typeof req.query.done === 'string' ? NOTICES[req.query.done] : undefined);

/** A row id from the path, or NaN (which no webhook or delivery has). */
const idIn = (raw: unknown) => (typeof raw === 'string' && /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : NaN);

/** The add form's fields as sent: a field sent twice (or not a string) counts as empty. */
function webhookForm(body: Record<string, unknown>): WebhookForm {
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  const types = Array.isArray(body.types) ? body.types.map(text) : body.types === undefined ? [] : [text(body.types)];
  return { url: text(body.url), types, event: text(body.event).trim() };
}

/**
 * An app's webhooks at the account pages (mounted inside the account router, under its session and CSRF
 * tokens): the list and the form that adds one, a webhook's deliveries and attempts, a test ping, a
 * redelivery, enabling and deleting. Only the app's owner reaches any of it; anyone else's webhook, app or
 * delivery is the same 404 as one that does not exist.
 */
export function webhookRouter({ services, sessions, nudgeWebhooks }: Deps): Router {
  const { viewer, guard, sessionCsrf, reserveChange, ownApp } = sessions;
  const by = (req: Request, who: Signed) => userActor(who.user, originOf(req));
  const router = express.Router();

  const listPage = async (
    req: Request,
    res: Response,
    who: Signed,
    app: ClientAppRow,
    extra: { status?: number; error?: string; notice?: string; form?: WebhookForm } = {},
  ) => {
    const webhooks = await services.webhooks.list(app.id);
    sendPage(res, extra.status ?? 200, webhooksPage({ app, webhooks, csrf: sessionCsrf(req, res, who), ...extra }));
  };

  const detailPage = async (
    req: Request,
    res: Response,
    who: Signed,
    { app, webhook }: Owned,
    extra: { status?: number; error?: string; notice?: string } = {},
  ) => {
    const { deliveries, attempts } = await services.webhooks.history(webhook.id, who.user.id);
    const csrf = sessionCsrf(req, res, who);
    sendPage(
      res,
      extra.status ?? 200,
      webhookPage({ app, webhook, deliveries, attempts, recent: RECENT, csrf, ...extra }),
    );
  };

  const noSuchWebhook = (res: Response) =>
    sendErrorPage(res, 404, { error: 'not_found', description: 'There is no such webhook in your account.' });

  /** The signed-in user's webhook by the id in the path, with its app; anyone else's (or none) is the same 404. */
  const ownWebhook = async (req: Request, res: Response, who: Signed): Promise<Owned | undefined> => {
    try {
      const webhook = await services.webhooks.find(idIn(req.params.id), who.user.id);
      const app = await services.apps.findOwned(who.user.id, String(webhook.appId));
      if (app) return { app, webhook };
    } catch (err) {
      if (!(err instanceof NotFound)) throw err;
    }
    noSuchWebhook(res);
    return undefined;
  };

  router.get('/apps/:id/webhooks', async (req: Request, res: Response) => {
    const who = await viewer(req, res);
    const app = who && (await ownApp(req, res, who));
    if (app) await listPage(req, res, who, app, { notice: noticeOf(req) });
  });

  // Adding a webhook counts as an app change (the throttle of the app forms); refused input is given back.
  router.post('/apps/:id/webhooks', async (req: Request, res: Response) => {
    const who = await guard(req, res);
    const app = who && (await ownApp(req, res, who));
    if (!app) return;
    const form = webhookForm(req.body as Record<string, unknown>);
    const refuse = (status: number) => (error: string) => listPage(req, res, who, app, { status, error, form });
    const change = await reserveChange(res, who, refuse(429));
    if (!change) return;
    try {
      const made = await services.webhooks.create(
        {
          appId: app.id,
          url: form.url,
          types: form.types,
          event: form.event === '' ? undefined : form.event,
        },
        by(req, who),
      );
      sendPage(res, 201, webhookSecretPage({ app, webhook: made.webhook, secret: made.secret }));
    } catch (err) {
      // Past the per-app cap is a Conflict: the form stays filled in, for after a delete.
      if (!(err instanceof InvalidInput || err instanceof Conflict)) throw err;
      await change.refused();
      await refuse(err instanceof Conflict ? 409 : 400)(sentence(err));
    }
  });

  router.get('/webhooks/:id', async (req: Request, res: Response) => {
    const who = await viewer(req, res);
    const owned = who && (await ownWebhook(req, res, who));
    if (owned) await detailPage(req, res, who, owned, { notice: noticeOf(req) });
  });

  /**
   * An action that sends something (a test ping, a redelivery): counted as an app change, since each makes
   * Roster send a request to the owner's URL; a refusal (the webhook is disabled) is given back and shown.
   */
  const sending = async (req: Request, res: Response, who: Signed, owned: Owned, send: () => Promise<string>) => {
    const refuse = (status: number) => (error: string) => detailPage(req, res, who, owned, { status, error });
    const change = await reserveChange(res, who, refuse(429));
    if (!change) return;
    try {
      const done = await send();
      nudgeWebhooks();
      res.redirect(303, webhookHref(owned.webhook.id, `?done=${done}`));
    } catch (err) {
      if (!(err instanceof Conflict || err instanceof NotFound)) throw err;
      await change.refused();
      // Gone since the page was checked (deleted in another tab): the same 404.
      if (err instanceof NotFound) return noSuchWebhook(res);
      await refuse(409)(sentence(err));
    }
  };

  router.post('/webhooks/:id/ping', async (req: Request, res: Response) => {
    const who = await guard(req, res);
    const owned = who && (await ownWebhook(req, res, who));
    if (!owned) return;
    await sending(req, res, who, owned, async () => {
      await services.webhooks.ping(owned.webhook.id, who.user.id, by(req, who));
      return 'pinged';
    });
  });

  router.post('/webhooks/:id/deliveries/:deliveryId/redeliver', async (req: Request, res: Response) => {
    const who = await guard(req, res);
    const owned = who && (await ownWebhook(req, res, who));
    if (!owned) return;
    // One of the deliveries its page lists: a delivery of another webhook (anyone's) is not this one's.
    const deliveryId = idIn(req.params.deliveryId);
    const { deliveries } = await services.webhooks.history(owned.webhook.id, who.user.id);
    if (!deliveries.some((d) => d.id === deliveryId)) {
      return sendErrorPage(res, 404, { error: 'not_found', description: 'This webhook has no such delivery.' });
    }
    await sending(req, res, who, owned, async () => {
      await services.webhooks.redeliver(deliveryId, who.user.id, by(req, who));
      return 'redelivered';
    });
  });

  // Enabling only lets what is queued go again: not counted, like deleting.
  router.post('/webhooks/:id/enable', async (req: Request, res: Response) => {
    const who = await guard(req, res);
    const owned = who && (await ownWebhook(req, res, who));
    if (!owned) return;
    await services.webhooks.enable(owned.webhook.id, who.user.id, by(req, who));
    nudgeWebhooks();
    res.redirect(303, appWebhooksHref(owned.app.id, '?done=enabled'));
  });

  const confirmDelete = (req: Request, res: Response, who: Signed, { app, webhook }: Owned) =>
    sendPage(res, 200, confirmDeleteWebhookPage({ app, webhook, csrf: sessionCsrf(req, res, who) }));

  router.get('/webhooks/:id/delete', async (req: Request, res: Response) => {
    const who = await viewer(req, res);
    const owned = who && (await ownWebhook(req, res, who));
    if (owned) confirmDelete(req, res, who, owned);
  });

  router.post('/webhooks/:id/delete', async (req: Request, res: Response) => {
    const who = await guard(req, res);
    const owned = who && (await ownWebhook(req, res, who));
    if (!owned) return;
    if (!confirmed(req)) return confirmDelete(req, res, who, owned);
    await services.webhooks.delete(owned.webhook.id, who.user.id, by(req, who));
    res.redirect(303, appWebhooksHref(owned.app.id, '?done=deleted'));
  });

  return router;
}
