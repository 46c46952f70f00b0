import { isIP } from 'node:net';
import { config as loadDotenv } from 'dotenv';
import { pino } from 'pino';
import { isProxyAddress } from './lib/addresses.js';
import { tracingSettings, type TracingSettings } from './lib/tracing-settings.js';
import { allowHosts, durations, secretsKey } from './lib/webhook-settings.js';

/** Every setting the service reads, resolved once from the environment. */
export interface Config {
  port: number;
  host: string;
  baseUrl: string;
  databaseUrl: string;
  /** Most PostgreSQL connections one instance opens (SQLite always uses one). */
  databasePoolMax: number;
  nodeEnv: string;
  production: boolean;
  logLevel: string;
  /** Lifetime of user access tokens, in seconds. */
  accessTokenTtl: number;
  /** Which peers' X-Forwarded-For is believed (Express's `trust proxy`): a hop count, proxy addresses/CIDRs, or none. */
  trustProxy: TrustProxy;
  /** Points per hour per token owner. */
  rateLimitPoints: number;
  /** AUTHORIZE_RATE_LIMIT: authorization requests (/auth) per client address per hour, counted before anything is stored. */
  authorizeRateLimit: number;
  /** Milliseconds a request may take before it is answered with 503. */
  requestTimeoutMs: number;
  /** Seconds between checks for signing keys added or retired by another process. */
  keysReloadInterval: number;
  /** Milliseconds the server keeps serving after SIGTERM (readiness failing) before it drains and exits. */
  shutdownDelayMs: number;
  /** METRICS_PORT: when set, /metrics is served only on this port (same HOST), not on the public one. */
  metricsPort: number | undefined;
  /** SMTP_URL: where password reset mail is sent (smtp:// or smtps://); unset means no reset by email. */
  smtpUrl: string | undefined;
  /** MAIL_FROM: the sender of Roster's mail, `address` or `Name <address>`. */
  mailFrom: string;
  /** EXPLORER_TELEMETRY: whether Apollo Sandbox at /graphql may send Apollo its usage telemetry. */
  explorerTelemetry: boolean;
  /** SERVICE_NAME: what the pages and mail call the service (title, header, consent, reset mail). */
  serviceName: string;
  /** RESPONSE_CACHE_MB: memory for replayable GraphQL answers per instance; 0 turns replays off. */
  responseCacheMb: number;
  /** CHANGES_RETENTION_DAYS: how long the change log keeps a change (the feed refuses older cursors). */
  changesRetentionDays: number;
  /** AUDIT_RETENTION_DAYS: how long the audit trail keeps a row. */
  auditRetentionDays: number;
  /** MAX_APPS_PER_USER: the most client apps one user may own (account pages and CLI alike). */
  maxAppsPerUser: number;
  /** WEBHOOK_RETRY_SCHEDULE: the delays, in milliseconds, before each retry of a failed delivery. */
  webhookRetrySchedule: number[];
  /** WEBHOOK_DISABLE_AFTER: milliseconds of nothing but failures after which a webhook is disabled. */
  webhookDisableAfterMs: number;
  /** WEBHOOK_ALLOW_HOSTS: hosts a webhook may reach in production although they resolve to internal addresses. */
  webhookAllowHosts: ReadonlySet<string>;
  /** MAX_WEBHOOKS_PER_APP: the most webhooks one app may have. */
  maxWebhooksPerApp: number;
  /** WEBHOOK_CONCURRENCY: delivery attempts one instance makes at once, over every webhook. */
  webhookConcurrency: number;
  /** STREAMS_MAX: live streams (/graphql/stream) one instance holds open at once. */
  streamsMax: number;
  /** STREAMS_PER_OWNER: live streams one token owner may hold open at one instance. */
  streamsPerOwner: number;
  /** STREAM_STALL_MS: how long a stream's client may take nothing in before the stream is ended. */
  streamStallMs: number;
  /** WEBHOOK_SECRETS_KEY: the key webhook secrets are sealed with; unset, one generated and kept in the database. */
  webhookSecretsKey: Buffer | undefined;
  /** The OTEL_* settings (lib/tracing-settings.ts): undefined when nothing is traced, no endpoint or OTEL_SDK_DISABLED. */
  tracing: TracingSettings | undefined;
}

export type TrustProxy = false | number | string[];

export class ConfigError extends Error {}

/** TRUST_PROXY: `false`/unset, a hop count, or a comma-separated list of proxies; never "trust every hop". */
function trustProxy(raw: string | undefined): TrustProxy {
  const value = (raw ?? '').trim();
  if (value === '' || /^false$/i.test(value) || value === '0') return false;
  if (/^true$/i.test(value)) {
    throw new ConfigError(
      'TRUST_PROXY=true would let any client pick its own address; give the hop count (e.g. 1) or the proxy addresses/CIDRs',
    );
  }
  if (/^\d+$/.test(value)) return Number(value);
  const entries = value.split(',').map((e) => e.trim());
  const bad = entries.find((e) => !isProxyAddress(e));
  if (bad !== undefined) {
    throw new ConfigError(
      `TRUST_PROXY must be false, a hop count, or addresses/CIDRs/loopback/linklocal/uniquelocal separated by commas; "${bad}" is none of these`,
    );
  }
  return entries;
}

/** What an error message shows of a raw value: quoted and escaped, so the message stays on one line. */
const fail = (message: string) => new ConfigError(message);
const shown = (raw: string) => JSON.stringify(raw.length > 80 ? `${raw.slice(0, 80)}…` : raw);

function integer(name: string, raw: string | undefined, fallback: number, min: number, max: number, unit = ''): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number${unit} from ${min} to ${max}, got ${shown(raw)}`);
  }
  return value;
}

/** pino's levels, and `silent`. */
export const LOG_LEVELS = [...Object.keys(pino.levels.values), 'silent'];

/** A hostname (RFC 1123 labels) or an IP address: what `server.listen` accepts as its host. */
function host(raw: string | undefined, production: boolean): string {
  if (raw === undefined || raw === '') return production ? '0.0.0.0' : '127.0.0.1';
  const name = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;
  if (isIP(raw) === 0 && !name.test(raw)) {
    throw new ConfigError(`HOST must be an IP address or a hostname to listen on, got ${shown(raw)}`);
  }
  return raw;
}

/** localhost, 127.0.0.0/8 and ::1: the only hosts a production BASE_URL may serve over plain http. */
function isLoopback(hostname: string): boolean {
  const bare = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost') || bare === '::1') return true;
  return isIP(bare) === 4 && bare.startsWith('127.');
}

/** BASE_URL: the public origin (and OIDC issuer); required in production, and https there unless loopback. */
function baseUrl(raw: string | undefined, port: number, production: boolean): string {
  if (raw === undefined || raw === '') {
    if (production) {
      throw new ConfigError(
        'BASE_URL is required when NODE_ENV=production: the public https origin, e.g. https://roster.example.com',
      );
    }
    return `http://localhost:${port}`;
  }
  const expected = 'an absolute http(s) URL without credentials, query or fragment';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`BASE_URL must be ${expected}, got ${shown(raw)}`);
  }
  if (
    !['http:', 'https:'].includes(url.protocol) ||
    url.username ||
    url.password ||
    url.search ||
    url.hash ||
    raw.includes('#') ||
    raw.includes('?')
  ) {
    throw new ConfigError(`BASE_URL must be ${expected}, got ${shown(raw)}`);
  }
  if (production && url.protocol !== 'https:' && !isLoopback(url.hostname)) {
    throw new ConfigError(
      `BASE_URL must be https when NODE_ENV=production (plain http only on a loopback host), got ${shown(raw)}`,
    );
  }
  return raw.replace(/\/+$/, '');
}

function databaseUrl(raw: string | undefined): string {
  const value = raw || 'sqlite:./data/roster.sqlite3';
  const expected = 'DATABASE_URL must be sqlite:<path> or postgres://user:pass@host:port/db';
  if (value.startsWith('sqlite:')) {
    if (value === 'sqlite:') throw new ConfigError(`${expected}, got "sqlite:" without a path`);
    return value;
  }
  // Never echoed: it may carry a password.
  if (!/^postgres(ql)?:\/\//.test(value) || !URL.canParse(value)) throw new ConfigError(expected);
  return value;
}

function metricsPort(raw: string | undefined, port: number): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const value = integer('METRICS_PORT', raw, 0, 1, 65535);
  if (value === port)
    throw new ConfigError(`METRICS_PORT must differ from PORT (${port}): it is a listener of its own`);
  return value;
}

function smtpUrl(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  // Never echoed: it may carry a password.
  if (!/^smtps?:\/\/[^/?#]/.test(raw) || !URL.canParse(raw)) {
    throw new ConfigError('SMTP_URL must be smtp://[user:pass@]host[:port] or smtps://… (TLS from the start)');
  }
  return raw;
}

/** MAIL_FROM: `address` or `Name <address>`; by default roster@ the host of BASE_URL. */
function mailFrom(raw: string | undefined, base: string): string {
  if (raw === undefined || raw === '') return `Roster <roster@${new URL(base).hostname.replace(/^\[|\]$/g, '')}>`;
  if (!/^(?:[^<>@\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/.test(raw.trim())) {
    throw new ConfigError(`MAIL_FROM must be an address or Name <address>, got ${shown(raw)}`);
  }
  return raw.trim();
}

export const DEFAULT_SERVICE_NAME = 'Roster';

/** SERVICE_NAME: 1 to 60 printable characters once trimmed (no control characters: it goes in mail subjects). */
function serviceName(raw: string | undefined): string {
  if (raw === undefined || raw === '') return DEFAULT_SERVICE_NAME;
  const name = raw.trim();
  if ([...name].length < 1 || [...name].length > 60 || /\p{C}/u.test(name)) {
    throw new ConfigError(`SERVICE_NAME must be 1 to 60 printable characters, got ${shown(raw)}`);
  }
  return name;
}

function flag(name: string, raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw new ConfigError(`${name} must be true or false, got ${shown(raw)}`);
}

export const NODE_ENVS = ['production', 'development', 'test'] as const;

/** NODE_ENV: one of NODE_ENVS, development when unset; a typo must not make a production box a demo box. */
function nodeEnvironment(raw: string | undefined): string {
  if (raw === undefined || raw === '') return 'development';
  if (!(NODE_ENVS as readonly string[]).includes(raw)) {
    throw new ConfigError(`NODE_ENV must be production, development or test, got ${shown(raw)}`);
  }
  return raw;
}

/** Reads the environment (and `.env` when present); pure apart from that. Every value is checked here. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, readDotenv = true): Config {
  if (readDotenv) loadDotenv({ quiet: true, processEnv: env });
  const nodeEnv = nodeEnvironment(env.NODE_ENV);
  const production = nodeEnv === 'production';
  const port = integer('PORT', env.PORT, 4000, 0, 65535);
  const logLevel = env.LOG_LEVEL || (nodeEnv === 'test' ? 'silent' : 'info');
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got ${shown(logLevel)}`);
  }
  const base = baseUrl(env.BASE_URL, port, production);
  return {
    port,
    host: host(env.HOST, production),
    baseUrl: base,
    databaseUrl: databaseUrl(env.DATABASE_URL),
    databasePoolMax: integer('DATABASE_POOL_MAX', env.DATABASE_POOL_MAX, 10, 1, 1000),
    nodeEnv,
    production,
    logLevel,
    accessTokenTtl: integer('ACCESS_TOKEN_TTL', env.ACCESS_TOKEN_TTL, 3600, 1, 31_536_000, ' of seconds'),
    trustProxy: trustProxy(env.TRUST_PROXY),
    rateLimitPoints: integer('RATE_LIMIT_POINTS', env.RATE_LIMIT_POINTS, 5000, 1, 1_000_000_000),
    authorizeRateLimit: integer('AUTHORIZE_RATE_LIMIT', env.AUTHORIZE_RATE_LIMIT, 600, 1, 1_000_000_000),
    // Under the 2-minute key activation delay, so every instance publishes a new key before it signs.
    keysReloadInterval: integer('KEYS_RELOAD_INTERVAL', env.KEYS_RELOAD_INTERVAL, 30, 1, 60, ' of seconds'),
    // setTimeout's ceiling (about 24.8 days): a longer delay would fire at once.
    requestTimeoutMs: integer('REQUEST_TIMEOUT_MS', env.REQUEST_TIMEOUT_MS, 10_000, 1, 2 ** 31 - 1, ' of milliseconds'),
    shutdownDelayMs: integer('SHUTDOWN_DELAY_MS', env.SHUTDOWN_DELAY_MS, 3000, 0, 600_000, ' of milliseconds'),
    metricsPort: metricsPort(env.METRICS_PORT, port),
    smtpUrl: smtpUrl(env.SMTP_URL),
    mailFrom: mailFrom(env.MAIL_FROM, base),
    explorerTelemetry: flag('EXPLORER_TELEMETRY', env.EXPLORER_TELEMETRY, false),
    serviceName: serviceName(env.SERVICE_NAME),
    responseCacheMb: integer('RESPONSE_CACHE_MB', env.RESPONSE_CACHE_MB, 32, 0, 4096, ' of megabytes'),
    auditRetentionDays: integer('AUDIT_RETENTION_DAYS', env.AUDIT_RETENTION_DAYS, 90, 1, 36500, ' of days'),
    maxAppsPerUser: integer('MAX_APPS_PER_USER', env.MAX_APPS_PER_USER, 25, 1, 100_000),
    changesRetentionDays: integer('CHANGES_RETENTION_DAYS', env.CHANGES_RETENTION_DAYS, 30, 1, 3650, ' of days'),
    webhookRetrySchedule: durations(
      'WEBHOOK_RETRY_SCHEDULE',
      env.WEBHOOK_RETRY_SCHEDULE,
      '5s,5m,30m,2h,5h,10h,10h',
      fail,
    ),
    webhookDisableAfterMs: durations('WEBHOOK_DISABLE_AFTER', env.WEBHOOK_DISABLE_AFTER, '5d', fail, true)[0]!,
    webhookAllowHosts: allowHosts(env.WEBHOOK_ALLOW_HOSTS, fail),
    maxWebhooksPerApp: integer('MAX_WEBHOOKS_PER_APP', env.MAX_WEBHOOKS_PER_APP, 10, 1, 1000),
    webhookConcurrency: integer('WEBHOOK_CONCURRENCY', env.WEBHOOK_CONCURRENCY, 16, 1, 1000),
    streamsMax: integer('STREAMS_MAX', env.STREAMS_MAX, 10_000, 1, 1_000_000),
    streamsPerOwner: integer('STREAMS_PER_OWNER', env.STREAMS_PER_OWNER, 10, 1, 10_000),
    streamStallMs: integer('STREAM_STALL_MS', env.STREAM_STALL_MS, 30_000, 1000, 3_600_000, ' of milliseconds'),
    webhookSecretsKey: secretsKey(env.WEBHOOK_SECRETS_KEY, fail),
    tracing: tracingSettings(env, fail),
  };
}
