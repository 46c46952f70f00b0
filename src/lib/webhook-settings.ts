import { parseAllowHosts } from './addresses.js';
import { parseDurations } from './durations.js';
import { parseKey } from './sealed-secret.js';

// The webhook settings' parsers; `fail` makes the caller's error (config.ts: a ConfigError) from one line.
type Fail = (message: string) => Error;

const shown = (raw: string) => JSON.stringify(raw.length > 80 ? `${raw.slice(0, 80)}…` : raw);

/** WEBHOOK_RETRY_SCHEDULE, WEBHOOK_DISABLE_AFTER: durations such as 5s,5m,2h (one only when `one`). */
export function durations(name: string, raw: string | undefined, fallback: string, fail: Fail, one = false): number[] {
  const parsed = parseDurations(raw === undefined || raw.trim() === '' ? fallback : raw);
  const wrong = typeof parsed === 'string' ? parsed : one && parsed.length > 1 ? 'takes one duration' : undefined;
  if (wrong) throw fail(`${name} ${wrong}, got ${shown(raw ?? '')}`);
  return parsed as number[];
}

/** WEBHOOK_SECRETS_KEY: 32 bytes in base64, or unset. */
export function secretsKey(raw: string | undefined, fail: Fail): Buffer | undefined {
  const key = raw ? parseKey(raw) : undefined;
  if (raw && !key) throw fail('WEBHOOK_SECRETS_KEY must be 32 bytes in base64 (openssl rand -base64 32)');
  return key;
}

/** WEBHOOK_ALLOW_HOSTS: exact host names or addresses, comma-separated. */
export function allowHosts(raw: string | undefined, fail: Fail): ReadonlySet<string> {
  try {
    return parseAllowHosts(raw);
  } catch (err) {
    throw fail(`WEBHOOK_ALLOW_HOSTS: ${(err as Error).message}`);
  }
}
