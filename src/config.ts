import { isIP } from 'node:net';
import { config as loadDotenv } from 'dotenv';

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
  /** Milliseconds a request may take before it is answered with 503. */
  requestTimeoutMs: number;
  /** Seconds between checks for signing keys added or retired by another process. */
  keysReloadInterval: number;
  /** Milliseconds the server keeps serving after SIGTERM (readiness failing) before it drains and exits. */
  shutdownDelayMs: number;
}

export type TrustProxy = false | number | string[];

export class ConfigError extends Error {}

const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** One proxy as Express's `trust proxy` names it: a named range, an address, or an address/prefix. */
function isProxyAddress(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0 || address.includes('%')) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) >= 1 && Number(prefix) <= (family === 4 ? 32 : 128);
}

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

function integer(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  return Number(raw);
}

/** Reads the environment (and `.env` when present); pure apart from that. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, readDotenv = true): Config {
  if (readDotenv) loadDotenv({ quiet: true, processEnv: env });
  const nodeEnv = env.NODE_ENV ?? 'development';
  const production = nodeEnv === 'production';
  const port = integer('PORT', env.PORT, 4000);
  if (port > 65535) throw new ConfigError(`PORT must be at most 65535, got ${port}`);
  const baseUrl = (env.BASE_URL || `http://localhost:${port}`).replace(/\/+$/, '');
  try {
    new URL(baseUrl);
  } catch {
    throw new ConfigError(`BASE_URL must be an absolute URL, got "${baseUrl}"`);
  }
  const databaseUrl = env.DATABASE_URL || 'sqlite:./data/roster.sqlite3';
  if (!/^(sqlite:|postgres(ql)?:\/\/)/.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with sqlite: or postgres://');
  }
  // Under the 2-minute key activation delay, so every instance publishes a new key before it signs.
  const keysReloadInterval = integer('KEYS_RELOAD_INTERVAL', env.KEYS_RELOAD_INTERVAL, 30);
  if (keysReloadInterval < 1 || keysReloadInterval > 60) {
    throw new ConfigError('KEYS_RELOAD_INTERVAL must be between 1 and 60 seconds');
  }
  const shutdownDelayMs = integer('SHUTDOWN_DELAY_MS', env.SHUTDOWN_DELAY_MS, 3000);
  if (shutdownDelayMs > 600_000) throw new ConfigError('SHUTDOWN_DELAY_MS must be at most 600000 (10 minutes)');
  const databasePoolMax = integer('DATABASE_POOL_MAX', env.DATABASE_POOL_MAX, 10);
  if (databasePoolMax < 1) throw new ConfigError('DATABASE_POOL_MAX must be at least 1');
  return {
    port,
    host: env.HOST || (production ? '0.0.0.0' : '127.0.0.1'),
    baseUrl,
    databaseUrl,
    databasePoolMax,
    nodeEnv,
    production,
    logLevel: env.LOG_LEVEL || (nodeEnv === 'test' ? 'silent' : 'info'),
    accessTokenTtl: integer('ACCESS_TOKEN_TTL', env.ACCESS_TOKEN_TTL, 3600),
    trustProxy: trustProxy(env.TRUST_PROXY),
    rateLimitPoints: integer('RATE_LIMIT_POINTS', env.RATE_LIMIT_POINTS, 5000),
    keysReloadInterval,
    requestTimeoutMs: Math.max(1, integer('REQUEST_TIMEOUT_MS', env.REQUEST_TIMEOUT_MS, 10_000)),
    shutdownDelayMs,
  };
}
