import { loadConfig, type Config } from '../config.js';
import type { Stores } from '../stores/stores.js';
import { AppService } from './app-service.js';
import { AuditService } from './audit.js';
import { createAppChangeThrottle, type AppChangeThrottle } from './app-change-throttle.js';
import { createAuthorizeThrottle, type AuthorizeThrottle } from './authorize-throttle.js';
import { ChangeFeed } from './change-feed.js';
import { EventService } from './event-service.js';
import { GrantService } from './grant-service.js';
import { NdjsonExporter } from './import/ndjson-export.js';
import { NdjsonImporter } from './import/ndjson-import.js';
import { LiveChanges } from './live-changes.js';
import { createLoginThrottle } from './login-throttle.js';
import { createSmtpMailer } from './mailer.js';
import { PasswordResetService } from './password-reset-service.js';
import { createRateLimiter, type RateLimiter } from './rate-limit.js';
import { RegistrationService } from './registration-service.js';
import { createResetThrottle } from './reset-throttle.js';
import { SignIn } from './sign-in.js';
import { UserService } from './user-service.js';
import { PersonalTokenService, PersonalTokenUse } from './personal-token-service.js';
import { WebhookDelivery } from './webhook-delivery.js';
import { WebhookService } from './webhook-service.js';
import { randomBytes } from 'node:crypto';

/** The domain's rules, one service per domain: what routers, the CLI and resolvers call. */
export interface Services {
  users: UserService;
  events: EventService;
  registrations: RegistrationService;
  apps: AppService;
  grants: GrantService;
  /** The change log as a feed, under the usual permissions. */
  changes: ChangeFeed;
  /** The change log as it grows, for live streams (reads nothing until a stream follows it). */
  live: LiveChanges;
  /** An app's webhooks, as owners and operators manage them. */
  webhooks: WebhookService;
  /** The webhook delivery queue, as a delivery worker takes from it. */
  deliveries: WebhookDelivery;
  importer: NdjsonImporter;
  exporter: NdjsonExporter;
  signIn: SignIn;
  /** The audit trail: recorded, listed, pruned. */
  audit: AuditService;
  resets: PasswordResetService;
  /** Users' personal access tokens, and when each was last used. */
  personalTokens: PersonalTokenService;
  personalTokenUse: PersonalTokenUse;
  /** The API's hourly budget per token owner (made on first use: it runs a timer). */
  readonly limiter: RateLimiter;
  authorizeThrottle: AuthorizeThrottle;
  appChanges: AppChangeThrottle;
  /** Writes the budget points granted and the token uses noted but not yet written, and stops their timers. */
  close(): Promise<void>;
}

/** The settings the services apply. */
export type ServiceConfig = Pick<
  Config,
  | 'production'
  | 'maxAppsPerUser'
  | 'changesRetentionDays'
  | 'auditRetentionDays'
  | 'rateLimitPoints'
  | 'authorizeRateLimit'
  | 'smtpUrl'
  | 'mailFrom'
  | 'serviceName'
  | 'maxWebhooksPerApp'
  | 'webhookRetrySchedule'
  | 'webhookDisableAfterMs'
  | 'webhookSecretsKey'
>;

/** Which limit refused a request: the metrics count refusals by it. */
export type RejectReason =
  'rate_limit' | 'login_throttle' | 'reset_throttle' | 'authorize_throttle' | 'app_change_throttle';

/** What the services ask of the process that builds them. */
export interface ServiceHooks {
  /** The page a password reset link opens, for its token (the page router knows where it lives). */
  resetLink?: (token: string) => string;
  /** A limit refused a request. */
  onReject?(reason: RejectReason): void;
  /** A mail could not be sent: it is sent after the answer, so nobody else hears of it. */
  onMailError?(err: unknown, what: 'password reset' | 'personal access token'): void;
  /** Where a user sees and revokes their personal access tokens (the mail about a new one links there). */
  personalTokensUrl?: string;
  /** Personal access tokens' last uses could not be written (they are noted again at their next use). */
  onLastUseError?(err: unknown): void;
  /** The live streams' reader of the change log failed (it tries again at the next signal). */
  onLiveError?(err: unknown): void;
  /** A webhook URL as it may be kept, or an InvalidInput (its form and, in production, its addresses). */
  validateWebhookUrl?: (url: string) => Promise<string>;
}

const noWebhookUrls = (): Promise<string> => {
  throw new Error('this process checks no webhook URLs');
};

/** WEBHOOK_SECRETS_KEY, or the key generated on first use and kept with the other service secrets. */
function webhookKey(stores: Stores, configured: Buffer | undefined): () => Promise<Buffer> {
  let key: Promise<Buffer> | undefined = configured && Promise.resolve(configured);
  return () =>
    (key ??= stores.secrets
      .getOrCreate('webhook_secrets_key', () => randomBytes(32).toString('base64'))
      .then((value) => Buffer.from(value, 'base64'))
      .catch((err: unknown) => {
        // A database that failed once is asked again next time, not held against every later use.
        key = undefined;
        throw err;
      }));
}

const noResetLinks = (): string => {
  throw new Error('this process hands out no password reset links');
};

/**
 * Builds every service, for the server, the CLI and the start-up alike. Without a config, development's
 * defaults (what tests that build services on their own stores want).
 */
export function createServices(
  stores: Stores,
  config: ServiceConfig = loadConfig({}, false),
  hooks: ServiceHooks = {},
): Services {
  const reject = (reason: RejectReason) => () => hooks.onReject?.(reason);
  const users = new UserService(stores);
  const apps = new AppService(stores, config);
  let limiter: RateLimiter | undefined;
  const secretsKey = webhookKey(stores, config.webhookSecretsKey);
  const audit = new AuditService(stores, config.auditRetentionDays);
  const mailer = config.smtpUrl === undefined ? undefined : createSmtpMailer(config.smtpUrl, config.mailFrom);
  return {
    users,
    events: new EventService(stores, users),
    registrations: new RegistrationService(stores, users),
    apps,
    grants: new GrantService(stores, users, apps),
    changes: new ChangeFeed(stores, config.changesRetentionDays),
    live: new LiveChanges(stores, {
      retentionDays: config.changesRetentionDays,
      onError: (err) => hooks.onLiveError?.(err),
    }),
    webhooks: new WebhookService(stores, config, {
      validateUrl: hooks.validateWebhookUrl ?? noWebhookUrls,
      secretsKey,
    }),
    deliveries: new WebhookDelivery(
      stores,
      { retrySchedule: config.webhookRetrySchedule, disableAfterMs: config.webhookDisableAfterMs },
      secretsKey,
    ),
    importer: new NdjsonImporter(stores),
    exporter: new NdjsonExporter(stores),
    signIn: new SignIn(stores, createLoginThrottle(stores, reject('login_throttle')), audit),
    audit,
    resets: new PasswordResetService(
      stores,
      users,
      hooks.resetLink ?? noResetLinks,
      mailer === undefined
        ? undefined
        : {
            mailer,
            throttle: createResetThrottle(stores, reject('reset_throttle')),
            serviceName: config.serviceName,
            onError: (err) => hooks.onMailError?.(err, 'password reset'),
          },
    ),
    personalTokens: new PersonalTokenService(
      stores,
      mailer === undefined || hooks.personalTokensUrl === undefined
        ? undefined
        : {
            mailer,
            serviceName: config.serviceName,
            tokensUrl: hooks.personalTokensUrl,
            onError: (err) => hooks.onMailError?.(err, 'personal access token'),
          },
    ),
    personalTokenUse: new PersonalTokenUse(stores, (err) => hooks.onLastUseError?.(err)),
    get limiter() {
      limiter ??= createRateLimiter(stores, config.rateLimitPoints, reject('rate_limit'));
      return limiter;
    },
    authorizeThrottle: createAuthorizeThrottle(stores, config.authorizeRateLimit, reject('authorize_throttle')),
    appChanges: createAppChangeThrottle(stores, reject('app_change_throttle')),
    async close() {
      this.live.close();
      await Promise.all([limiter?.close(), this.personalTokenUse.flush()]);
    },
  };
}
