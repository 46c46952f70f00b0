import { readFileSync } from 'node:fs';
import { parse } from 'dotenv';
import { PassThrough, Readable } from 'node:stream';
import { run } from '../src/cli/main.js';
import { ConfigError, loadConfig, type Config } from '../src/config.js';

const load = (env: NodeJS.ProcessEnv) => loadConfig(env, false);

describe('good values', () => {
  test.each<[NodeJS.ProcessEnv, Partial<Config>]>([
    [
      {},
      {
        port: 4000,
        host: '127.0.0.1',
        baseUrl: 'http://localhost:4000',
        databaseUrl: 'sqlite:./data/roster.sqlite3',
        databasePoolMax: 10,
        nodeEnv: 'development',
        production: false,
        logLevel: 'info',
        accessTokenTtl: 3600,
        trustProxy: false,
        rateLimitPoints: 5000,
        requestTimeoutMs: 10_000,
        keysReloadInterval: 30,
        shutdownDelayMs: 3000,
        metricsPort: undefined,
        smtpUrl: undefined,
        mailFrom: 'Roster <roster@localhost>',
        explorerTelemetry: false,
        serviceName: 'Roster',
      },
    ],
    [{ PORT: '0' }, { port: 0 }],
    [{ PORT: '65535' }, { port: 65535, baseUrl: 'http://localhost:65535' }],
    [{ HOST: '::' }, { host: '::' }],
    [{ HOST: 'roster-1.internal' }, { host: 'roster-1.internal' }],
    [{ BASE_URL: 'https://roster.example.com/' }, { baseUrl: 'https://roster.example.com' }],
    [{ BASE_URL: 'http://roster.test:8080/roster' }, { baseUrl: 'http://roster.test:8080/roster' }],
    [{ DATABASE_URL: 'postgres://u:p@db:5432/roster' }, { databaseUrl: 'postgres://u:p@db:5432/roster' }],
    [{ DATABASE_URL: 'sqlite::memory:' }, { databaseUrl: 'sqlite::memory:' }],
    [{ SMTP_URL: 'smtp://mail.internal:2525' }, { smtpUrl: 'smtp://mail.internal:2525' }],
    [{ SMTP_URL: 'smtps://u:p@mail.example.com' }, { smtpUrl: 'smtps://u:p@mail.example.com' }],
    [{ BASE_URL: 'https://roster.example.com' }, { mailFrom: 'Roster <roster@roster.example.com>' }],
    [{ MAIL_FROM: 'noreply@example.com' }, { mailFrom: 'noreply@example.com' }],
    [{ MAIL_FROM: 'Event Desk <desk@example.com>' }, { mailFrom: 'Event Desk <desk@example.com>' }],
    [{ DATABASE_POOL_MAX: '1' }, { databasePoolMax: 1 }],
    [{ NODE_ENV: 'test' }, { nodeEnv: 'test', logLevel: 'silent' }],
    [{ LOG_LEVEL: 'debug' }, { logLevel: 'debug' }],
    [{ LOG_LEVEL: 'silent' }, { logLevel: 'silent' }],
    [{ ACCESS_TOKEN_TTL: '1' }, { accessTokenTtl: 1 }],
    [{ RATE_LIMIT_POINTS: '1' }, { rateLimitPoints: 1 }],
    [{ REQUEST_TIMEOUT_MS: '1' }, { requestTimeoutMs: 1 }],
    [{ KEYS_RELOAD_INTERVAL: '60' }, { keysReloadInterval: 60 }],
    [{ SHUTDOWN_DELAY_MS: '0' }, { shutdownDelayMs: 0 }],
    [{ METRICS_PORT: '9464' }, { metricsPort: 9464 }],
    [{ TRUST_PROXY: '1' }, { trustProxy: 1 }],
    [{ EXPLORER_TELEMETRY: 'true' }, { explorerTelemetry: true }],
    [{ EXPLORER_TELEMETRY: 'false' }, { explorerTelemetry: false }],
    [{ SERVICE_NAME: '  Event Desk  ' }, { serviceName: 'Event Desk' }],
    [{ RESPONSE_CACHE_MB: '0' }, { responseCacheMb: 0 }],
    [{ RESPONSE_CACHE_MB: '256' }, { responseCacheMb: 256 }],
    [{}, { webhookRetrySchedule: [5000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] }],
    [{}, { webhookDisableAfterMs: 5 * 86_400_000, maxWebhooksPerApp: 10, webhookConcurrency: 16 }],
    [{}, { webhookAllowHosts: new Set(), webhookSecretsKey: undefined }],
    [{ WEBHOOK_RETRY_SCHEDULE: '1s, 2m,3h ,1d' }, { webhookRetrySchedule: [1000, 120_000, 10_800_000, 86_400_000] }],
    [{ WEBHOOK_DISABLE_AFTER: '90m' }, { webhookDisableAfterMs: 5_400_000 }],
    [
      { WEBHOOK_ALLOW_HOSTS: 'Hooks.Internal., 10.0.0.5' },
      { webhookAllowHosts: new Set(['hooks.internal', '10.0.0.5']) },
    ],
    [{ WEBHOOK_SECRETS_KEY: Buffer.alloc(32, 7).toString('base64') }, { webhookSecretsKey: Buffer.alloc(32, 7) }],
    [
      { MAX_WEBHOOKS_PER_APP: '1', WEBHOOK_CONCURRENCY: '1000' },
      { maxWebhooksPerApp: 1, webhookConcurrency: 1000 },
    ],
    [{ SERVICE_NAME: 'Ü'.repeat(60) }, { serviceName: 'Ü'.repeat(60) }],
    [{ SERVICE_NAME: '<script>alert(1)</script>' }, { serviceName: '<script>alert(1)</script>' }],
    [
      { NODE_ENV: 'production', BASE_URL: 'https://roster.example.com' },
      { production: true, host: '0.0.0.0', baseUrl: 'https://roster.example.com' },
    ],
    [{ NODE_ENV: 'production', BASE_URL: 'http://localhost:4000' }, { baseUrl: 'http://localhost:4000' }],
    [{ NODE_ENV: 'production', BASE_URL: 'http://127.0.0.5:4000' }, { baseUrl: 'http://127.0.0.5:4000' }],
    [{ NODE_ENV: 'production', BASE_URL: 'http://[::1]:4000' }, { baseUrl: 'http://[::1]:4000' }],
  ])('%j', (env, expected) => {
    expect(load(env)).toMatchObject(expected);
  });
});

describe('bad values: one line naming the variable and what is expected', () => {
  test.each<[NodeJS.ProcessEnv, RegExp]>([
    [{ PORT: 'http' }, /^PORT must be a whole number from 0 to 65535, got "http"$/],
    [{ PORT: '65536' }, /^PORT must be .* 0 to 65535/],
    [{ PORT: '-1' }, /^PORT must/],
    [{ PORT: '80.5' }, /^PORT must/],
    [{ PORT: ' 80' }, /^PORT must/],
    [{ HOST: 'not a host' }, /^HOST must be an IP address or a hostname/],
    [{ HOST: 'http://example.com' }, /^HOST must/],
    [{ BASE_URL: 'roster.example.com' }, /^BASE_URL must be an absolute http\(s\) URL/],
    [{ BASE_URL: 'ftp://roster.example.com' }, /^BASE_URL must be an absolute http\(s\) URL/],
    [{ BASE_URL: 'https://roster.example.com/?a=1' }, /^BASE_URL must .* without credentials, query or fragment/],
    [{ BASE_URL: 'https://roster.example.com/#top' }, /^BASE_URL must/],
    [{ BASE_URL: 'https://user:pw@roster.example.com' }, /^BASE_URL must/],
    [{ NODE_ENV: 'production' }, /^BASE_URL is required when NODE_ENV=production/],
    [
      { NODE_ENV: 'production', BASE_URL: 'http://roster.example.com' },
      /^BASE_URL must be https when NODE_ENV=production/,
    ],
    [{ NODE_ENV: 'production', BASE_URL: 'http://10.0.0.1' }, /^BASE_URL must be https/],
    [{ NODE_ENV: 'production', BASE_URL: 'http://localhost.example.com' }, /^BASE_URL must be https/],
    [{ NODE_ENV: 'staging' }, /^NODE_ENV must be production, development or test, got "staging"$/],
    [{ DATABASE_URL: 'mysql://db/roster' }, /^DATABASE_URL must be sqlite:<path> or postgres:/],
    [{ DATABASE_URL: 'sqlite:' }, /^DATABASE_URL must/],
    [{ DATABASE_POOL_MAX: '0' }, /^DATABASE_POOL_MAX must be a whole number from 1/],
    [
      { LOG_LEVEL: 'verbose' },
      /^LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, got "verbose"$/,
    ],
    [{ ACCESS_TOKEN_TTL: '0' }, /^ACCESS_TOKEN_TTL must be a whole number of seconds from 1/],
    [{ ACCESS_TOKEN_TTL: '1h' }, /^ACCESS_TOKEN_TTL must/],
    [{ RATE_LIMIT_POINTS: '0' }, /^RATE_LIMIT_POINTS must be a whole number from 1/],
    [{ REQUEST_TIMEOUT_MS: '0' }, /^REQUEST_TIMEOUT_MS must be a whole number of milliseconds from 1/],
    [{ REQUEST_TIMEOUT_MS: '3000000000' }, /^REQUEST_TIMEOUT_MS must/],
    [{ KEYS_RELOAD_INTERVAL: '61' }, /^KEYS_RELOAD_INTERVAL must be a whole number of seconds from 1 to 60/],
    [{ SHUTDOWN_DELAY_MS: '600001' }, /^SHUTDOWN_DELAY_MS must .* from 0 to 600000/],
    [{ TRUST_PROXY: 'true' }, /^TRUST_PROXY=true/],
    [{ METRICS_PORT: '0' }, /^METRICS_PORT must be a whole number from 1 to 65535/],
    [{ METRICS_PORT: 'yes' }, /^METRICS_PORT must/],
    [{ PORT: '9464', METRICS_PORT: '9464' }, /^METRICS_PORT must differ from PORT/],
    [{ SMTP_URL: 'mail.example.com' }, /^SMTP_URL must be smtp:\/\/\[user:pass@\]host\[:port\] or smtps:/],
    [{ SMTP_URL: 'http://mail.example.com' }, /^SMTP_URL must/],
    [{ MAIL_FROM: 'nobody' }, /^MAIL_FROM must be an address or Name <address>, got "nobody"$/],
    [{ MAIL_FROM: 'a@b.c\r\nBcc: x@y.z' }, /^MAIL_FROM must/],
    [{ EXPLORER_TELEMETRY: 'yes' }, /^EXPLORER_TELEMETRY must be true or false, got "yes"$/],
    [{ SERVICE_NAME: '   ' }, /^SERVICE_NAME must be 1 to 60 printable characters, got " {3}"$/],
    [{ RESPONSE_CACHE_MB: '-1' }, /^RESPONSE_CACHE_MB must be a whole number of megabytes from 0 to 4096, got "-1"$/],
    [{ WEBHOOK_RETRY_SCHEDULE: '5x' }, /^WEBHOOK_RETRY_SCHEDULE takes durations like 5s, 30m, 2h or 5d .*, got "5x"$/],
    [{ WEBHOOK_RETRY_SCHEDULE: '0s' }, /^WEBHOOK_RETRY_SCHEDULE takes durations like/],
    [{ WEBHOOK_RETRY_SCHEDULE: '366d' }, /^WEBHOOK_RETRY_SCHEDULE takes durations like .*at most 365d/],
    [{ WEBHOOK_RETRY_SCHEDULE: '5s,,5m' }, /^WEBHOOK_RETRY_SCHEDULE takes durations like/],
    [{ WEBHOOK_RETRY_SCHEDULE: Array(51).fill('1s').join(',') }, /^WEBHOOK_RETRY_SCHEDULE takes at most 50 durations/],
    [{ WEBHOOK_DISABLE_AFTER: '5d,1h' }, /^WEBHOOK_DISABLE_AFTER takes one duration, got "5d,1h"$/],
    [
      { WEBHOOK_ALLOW_HOSTS: 'ok.example, bad host' },
      /^WEBHOOK_ALLOW_HOSTS: "bad host" is not a host name or IP address$/,
    ],
    [{ WEBHOOK_SECRETS_KEY: 'c2hvcnQ=' }, /^WEBHOOK_SECRETS_KEY must be 32 bytes in base64/],
    [{ MAX_WEBHOOKS_PER_APP: '0' }, /^MAX_WEBHOOKS_PER_APP must be a whole number from 1 to 1000, got "0"$/],
    [{ WEBHOOK_CONCURRENCY: '1001' }, /^WEBHOOK_CONCURRENCY must be a whole number from 1 to 1000, got "1001"$/],
    [{ SERVICE_NAME: 'x'.repeat(61) }, /^SERVICE_NAME must be 1 to 60 printable characters/],
    [{ SERVICE_NAME: 'Event\nDesk' }, /^SERVICE_NAME must .*, got "Event\\nDesk"$/],
    [{ SERVICE_NAME: 'Event\u0007Desk' }, /^SERVICE_NAME must/],
  ])('%j', (env, message) => {
    let thrown: unknown;
    try {
      load(env);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as Error).message).toMatch(message);
    expect((thrown as Error).message).not.toContain('\n');
  });

  test('a value with a line break is shown escaped: the message stays one line', () => {
    expect(() => load({ PORT: '80\nINJECTED' })).toThrow(/^PORT must .*, got "80\\nINJECTED"$/);
  });

  test('an SMTP URL is never echoed: it may carry a password', () => {
    expect(() => load({ SMTP_URL: 'ftp://u:secret@mail' })).toThrow(/^SMTP_URL must/);
    expect(() => load({ SMTP_URL: 'ftp://u:secret@mail' })).not.toThrow(/secret/);
  });

  test('a PostgreSQL URL is never echoed: it may carry a password', () => {
    expect(() => load({ DATABASE_URL: 'postgres://u:secret@' })).toThrow(ConfigError);
    expect(() => load({ DATABASE_URL: 'postgres://u:secret@' })).not.toThrow(/secret/);
  });
});

describe('the CLI reads the same configuration and reports it the same way', () => {
  test.each<[NodeJS.ProcessEnv, string]>([
    [
      { NODE_ENV: 'production', DATABASE_URL: 'sqlite::memory:' },
      'roster: BASE_URL is required when NODE_ENV=production: the public https origin, e.g. https://roster.example.com\n',
    ],
    [
      { NODE_ENV: 'test', DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'loud' },
      'roster: LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, got "loud"\n',
    ],
  ])('%j', async (env, line) => {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let err = '';
    stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await run(['migrate', '--json'], { stdout, stderr, stdin: Readable.from(['']), env });
    expect(code).toBe(1);
    expect(err).toBe(line);
  });
});

test('.env.example lists every variable the service reads, each with its default', () => {
  const read = new Set<string>();
  const blank: NodeJS.ProcessEnv = {};
  const recording = new Proxy(blank, {
    get: (_target, key) => {
      if (typeof key === 'string') read.add(key);
      return undefined;
    },
  });
  const defaults = load(recording);
  const example = parse(readFileSync(new URL('../.env.example', import.meta.url)));
  expect(Object.keys(example).sort()).toEqual([...read].sort());
  expect(load(example)).toEqual(defaults);
});
