import express, { type Express } from 'express';
import type Provider from 'oidc-provider';
import { pino, type Logger } from 'pino';
import type { Registry } from 'prom-client';
import { randomBytes } from 'node:crypto';
import { createViewerLookup } from './services/bearer.js';
import { explorerName } from './services/explorer-client.js';
import { createCsrf } from './http/csrf.js';
import { GUARDED_PATHS, authorizeGuard } from './oidc/authorize-guard.js';
import { createServices, type Services } from './services/services.js';
import type { Config } from './config.js';
import type { Db } from './stores/database.js';
import { createStores, type Stores } from './stores/stores.js';
import { createGraphqlRouter } from './graphql/router.js';
import { createAccessTokenLookup } from './oidc/access-token-lookup.js';
import { accountRouter } from './pages/account.js';
import { passwordResetRouter } from './pages/password-reset.js';
import { resetLinkFor } from './http/reset-link.js';
import { interactionRouter } from './pages/interactions.js';
import { createLiveIdentity } from './oidc/live-identity.js';
import { pageHeaders } from './http/pages/page-headers.js';
import { STYLESHEET } from './http/pages/stylesheet.js';
import { userinfoRouter } from './oidc/userinfo.js';
import { createMetrics } from './observability/metrics.js';
import { requestLog } from './observability/request-log.js';
import { httpSpans } from './observability/http-spans.js';
import { requestTimeout } from './http/request-timeout.js';
import { requestId } from './http/request-id.js';
import { inSequence } from './http/in-sequence.js';
import { errorHandler } from './http/error-handler.js';
import { PAGE_PATHS } from './http/route-format.js';
import { PATHS, accountTokensHref } from './http/paths.js';
import { healthRouter } from './http/health.js';
import { startDeliveryWorker } from './webhooks/delivery-worker.js';
import { sendWebhook } from './webhooks/send-webhook.js';
import { validateWebhookUrl } from './webhooks/webhook-url.js';

const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

export interface RosterDeps {
  config: Config;
  db: Db;
  logger?: Logger;
}

export interface Roster {
  /** The Express application (not an OAuth client app): every route, mounted. */
  express: Express;
  stores: Stores;
  services: Services;
  provider: Provider;
  logger: Logger;
  /** The Prometheus registry behind /metrics, for the METRICS_PORT listener. */
  metricsRegistry: Registry;
  nudgeWebhooks(): void;
  /** From now on /readyz answers 503: the process is shutting down. */
  notReady(): void;
  close(): Promise<void>;
}

/** The whole service, not listening: server.ts listens, tests import this. */
export async function createRoster(deps: RosterDeps): Promise<Roster> {
  const { config, db } = deps;
  // Written asynchronously (lines written meanwhile go out together), flushed by pino when the process exits.
  const logger = deps.logger ?? pino({ level: config.logLevel }, pino.destination({ sync: false }));
  const stores = createStores(db);
  const metrics = createMetrics({
    poolStats: () => stores.health.pool(),
    webhookBacklog: () => services.deliveries.backlog(),
    openStreams: () => graphql.streams.open,
    // Read when scraped, so an alert sees what a readiness probe would.
    ready: () =>
      stores.health.ping().then(
        () => !shuttingDown,
        () => false,
      ),
  });
  // Where webhooks may be sent: checked when one is created and again at every attempt.
  const addressPolicy = { production: config.production, allowHosts: config.webhookAllowHosts };
  const services = createServices(stores, config, {
    resetLink: resetLinkFor(config.baseUrl),
    onReject: (reason) => metrics.rejections.inc({ reason }),
    onMailError: (err, what) => logger.error({ err }, `${what} mail not sent`),
    personalTokensUrl: `${config.baseUrl}${accountTokensHref()}`,
    onLastUseError: (err) =>
      logger.warn({ err }, 'personal access tokens: last uses not written; noted again at next use'),
    onLiveError: (err) => logger.warn({ err }, 'live streams: the change log not read; trying again'),
    validateWebhookUrl: (url) => validateWebhookUrl(url, addressPolicy),
  });
  const webhookWorker = startDeliveryWorker({
    deliveries: services.deliveries,
    send: (request, limits) => sendWebhook(request, { ...addressPolicy, ...limits }),
    concurrency: config.webhookConcurrency,
    logger,
    onOutcome: (outcome) => metrics.webhookDeliveries.inc({ outcome }),
  });
  const { signIn, resets, limiter } = services;
  const identity = await createLiveIdentity(
    { config, stores },
    (err, requestId) => logger.error({ err, requestId }, 'provider request failed'),
    { audit: services.audit, onError: (err) => logger.warn({ err }, 'audit row of a token event not written') },
  );
  const { pairwiseSalt } = identity;
  const viewers = createViewerLookup(stores, createAccessTokenLookup(identity), {
    explorerName: explorerName(config.serviceName),
    onPersonalTokenUse: (id) => services.personalTokenUse.note(id),
  });
  const graphql = await createGraphqlRouter({
    services,
    viewers,
    config,
    logger,
    limiter,
    onStreamEvent: () => metrics.streamEvents.inc(),
    onStreamRefused: (reason) => metrics.rejections.inc({ reason: `stream_limit_${reason}` }),
  });
  const secure = config.baseUrl.startsWith('https:');
  const csrf = createCsrf(
    await stores.secrets.getOrCreate('csrf_secret', () => randomBytes(32).toString('base64url')),
    secure,
  );

  const web = express();
  web.disable('x-powered-by');
  web.set('trust proxy', config.trustProxy);
  // Read by every page we render (serviceNameOf), the provider's hooks included.
  web.locals.serviceName = config.serviceName;
  web.use(
    inSequence(
      // First, so the server span covers the whole request; not there at all when tracing is off.
      ...(config.tracing ? [httpSpans()] : []),
      requestId,
      requestLog(logger, metrics),
      requestTimeout(config.requestTimeoutMs, (path, res) => {
        metrics.rejections.inc({ reason: 'timeout' });
        logger.warn({ requestId: res.locals.requestId, path, timeoutMs: config.requestTimeoutMs }, 'request timed out');
      }),
    ),
  );
  // With METRICS_PORT, /metrics lives on its own listener (server.ts) and the public port does not serve it.
  if (config.metricsPort === undefined) {
    web.get(PATHS.metrics, async (_req, res) => {
      res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
    });
  }
  // The API first: its requests are the many, and Express tries every route mounted before it on each one.
  web.use(PATHS.graphql, graphql.router);
  let shuttingDown = false;
  let workerStopped: Promise<void> | undefined;
  web.use(healthRouter({ health: stores.health, logger, shuttingDown: () => shuttingDown }));
  web.get(PATHS.stylesheet, (_req, res) => {
    res.type('css').set('Cache-Control', 'public, max-age=3600').send(STYLESHEET);
  });
  web.use(PAGE_PATHS, pageHeaders);
  web.use(PATHS.interaction, interactionRouter({ identity, services, signIn, csrf }));
  web.use(PATHS.passwordReset, passwordResetRouter({ resets, csrf }));
  web.use(
    PATHS.account,
    accountRouter({
      services,
      signIn,
      csrf,
      secure,
      appChanges: services.appChanges,
      nudgeWebhooks: () => webhookWorker.nudge(),
    }),
  );
  web.use(PATHS.userinfo, userinfoRouter({ services, viewers, pairwiseSalt, limiter }));
  web.all(GUARDED_PATHS, authorizeGuard(services.authorizeThrottle));
  web.use(errorHandler(logger));
  // Last: everything else is the OpenID provider's (discovery, JWKS, /auth, /token, ...).
  web.use(identity.callback);

  // Expired codes, sessions, tokens, changes and audit rows past their retention: swept now and then (any instance may).
  const sweeper = setInterval(() => {
    Promise.all([
      stores.oidc.deleteExpired(),
      stores.accountSessions.deleteExpired(),
      stores.passwordResets.deleteExpired(Date.now()),
      services.changes.prune(),
      services.deliveries.prune(Date.now() - config.changesRetentionDays * 86_400_000),
      services.audit.prune(),
    ]).catch((err: unknown) =>
      logger.warn({ err }, 'expired OIDC rows, sessions, reset links, changes, deliveries or audit rows not swept'),
    );
  }, SWEEP_INTERVAL_MS).unref();

  // A key added by `roster keys rotate` (any instance, any time) is published here within the interval.
  const keyWatcher = setInterval(() => {
    identity.reload().then(
      (changed) => changed && logger.info('signing keys reloaded'),
      (err: unknown) => logger.warn({ err }, 'signing keys not reloaded'),
    );
  }, config.keysReloadInterval * 1000).unref();

  return {
    express: web,
    stores,
    services,
    get provider() {
      return identity.provider;
    },
    logger,
    metricsRegistry: metrics.registry,
    notReady() {
      shuttingDown = true;
      // Live streams end now: their clients reconnect, with Last-Event-ID, to an instance that stays.
      graphql.streams.closeAll();
      // No new attempts from now on; those under way finish (or are released) while requests drain.
      workerStopped ??= webhookWorker.stop();
    },
    /** Looks for due webhook deliveries now rather than at the next poll. */
    nudgeWebhooks() {
      webhookWorker.nudge();
    },
    async close() {
      graphql.streams.closeAll();
      // First: attempts under way finish (or are released) while the database is still open.
      await (workerStopped ??= webhookWorker.stop());
      clearInterval(sweeper);
      clearInterval(keyWatcher);
      await graphql.stop();
      // Points granted but not yet written count against the owner at every other instance too.
      await services.close();
    },
  };
}
