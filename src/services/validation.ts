import { ACTIVATION_STATES, type ActivationState, type Visibility } from '../stores/types.js';
import { InvalidInput } from './errors.js';
import { codePoint, quoted, UNSAFE } from '../lib/text.js';

// Input checks shared by the services and the importer: each returns the clean value or throws InvalidInput.

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const UID = /^[A-Za-z0-9_-]{1,64}$/;

/** Refuses a value carrying a control or text-direction character (see UNSAFE_RANGES), naming the first. */
export function plain(value: string, field?: string): string {
  const found = UNSAFE.exec(value);
  if (found) {
    throw new InvalidInput(
      `must not contain control or text-direction characters (found ${codePoint(found[0])})`,
      field,
    );
  }
  return value;
}

export function email(value: unknown, field = 'email'): string {
  if (typeof value === 'string') plain(value, field);
  if (typeof value !== 'string' || value.length > 320 || !EMAIL.test(value)) {
    throw new InvalidInput('must be an email address', field);
  }
  return value;
}

/** A name (of a user, an event, an app): one line of printable text, trimmed, 1 to `max` characters. */
export function text(value: unknown, field: string, max = 500): string {
  if (typeof value !== 'string' || value.trim() === '') throw new InvalidInput('must be a non-empty string', field);
  if (value.length > max) throw new InvalidInput(`must be at most ${max} characters`, field);
  return plain(value.trim(), field);
}

export function slug(value: unknown, field = 'slug'): string {
  if (typeof value !== 'string' || value.length > 100 || !SLUG.test(value)) {
    throw new InvalidInput('must be lowercase letters, digits and single hyphens (1-100 characters)', field);
  }
  return value;
}

export function uid(value: unknown, field = 'uid'): string {
  if (typeof value !== 'string' || !UID.test(value)) {
    throw new InvalidInput("must be 1-64 letters, digits, '_' or '-'", field);
  }
  return value;
}

/** A user reference: an email (contains @) or a uid. */
export function userKey(value: unknown, field = 'user'): string {
  if (typeof value === 'string' && value.includes('@')) return email(value, field);
  return uid(value, field);
}

/** An absolute http(s) URL, kept as typed: so without a control or text-direction character (the URL parser would drop or encode some). */
export function httpUrl(value: unknown, field: string): string {
  const raw = String(value);
  if (raw.length > 2000) throw new InvalidInput('must be an absolute http(s) URL', field);
  plain(raw, field);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidInput('must be an absolute http(s) URL', field);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new InvalidInput('must be an absolute http(s) URL', field);
  }
  return raw;
}

/** localhost, 127.0.0.0/8 and [::1], as the URL parser leaves a hostname (lowercase, IPv4 normalized). */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/**
 * A redirect URI: absolute http(s), no fragment (RFC 6749 §3.1.2). In production it must be https except on
 * a loopback host (OAuth 2.1, RFC 8252 §7.3): a code sent to plain http elsewhere would cross the network in clear.
 */
export function redirectUri(value: unknown, field = 'redirect_uri', { production = false } = {}): string {
  const uri = httpUrl(value, field);
  if (uri.includes('#')) throw new InvalidInput('must not contain a fragment', field);
  if (production) {
    const url = new URL(uri);
    if (url.protocol !== 'https:' && !isLoopbackHost(url.hostname)) {
      throw new InvalidInput(
        'must use https (plain http only on a loopback host: localhost, 127.0.0.0/8 or [::1])',
        field,
      );
    }
  }
  return uri;
}

export function timeZone(value: unknown, field = 'time_zone'): string {
  if (typeof value !== 'string' || value === '') throw new InvalidInput('must be an IANA time zone', field);
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
  } catch {
    throw new InvalidInput(`${quoted(value)} is not an IANA time zone`, field);
  }
  return value;
}

export function activationState(value: unknown): ActivationState {
  if (!ACTIVATION_STATES.includes(value as ActivationState)) {
    throw new InvalidInput(`activation state must be one of ${ACTIVATION_STATES.join(', ')}`);
  }
  return value as ActivationState;
}

export function visibility(value: unknown): Visibility {
  if (value !== 'public' && value !== 'private') throw new InvalidInput('must be public or private', 'visibility');
  return value;
}

/** An ISO 8601 date-time (with a date part), as epoch milliseconds. */
export function isoTime(value: unknown, field: string): number {
  const ms = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) throw new InvalidInput('must be an ISO 8601 date-time', field);
  return ms;
}

export function boolean(value: unknown, field: string): boolean {
  if (typeof value !== 'boolean') throw new InvalidInput('must be true or false', field);
  return value;
}

export function timeRange(startsAt: number | null, endsAt: number | null): void {
  if (startsAt !== null && endsAt !== null && endsAt < startsAt) {
    throw new InvalidInput('ends_at must not be before starts_at');
  }
}

export const MAX_PAGE_SIZE = 1000;

/** A page size given as text (a CLI option): a whole number from 1 to MAX_PAGE_SIZE. */
export function limit(value: string | undefined, fallback = 50): number {
  if (value === undefined) return fallback;
  const n = /^\d{1,4}$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && n <= MAX_PAGE_SIZE))
    throw new InvalidInput(`must be a whole number from 1 to ${MAX_PAGE_SIZE}`, 'limit');
  return n;
}

/** A keyset cursor as a previous page printed it (`next`): the last row's id. */
export function cursor(value: string | undefined): number | null {
  if (value === undefined) return null;
  // A row id (1 to 2147483647, PostgreSQL's integer: src/lib/ids.ts MAX_ROW_ID): a larger one was never printed.
  const n = /^[1-9]\d{0,9}$/.test(value) ? Number(value) : NaN;
  if (!(n <= 2_147_483_647)) throw new InvalidInput("must be the 'next' value a previous page printed", 'after');
  return n;
}

/** Paging options as the CLI gives them. */
export interface PageInput {
  limit?: string;
  after?: string;
}

export const paging = (input: PageInput) => ({ first: limit(input.limit), afterId: cursor(input.after) });
