import { ACTIVATION_STATES, type ActivationState, type Visibility } from '../stores/types.js';
import { InvalidInput } from './errors.js';

// Input checks shared by the services and the importer: each returns the clean value or throws InvalidInput.

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const UID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * What a terminal acts on or what reorders text, in a value that is shown to people: the C0 controls
 * (NUL, TAB, CR, LF, ESC, ...), DEL and the C1 controls (CSI U+009B, ...), the bidirectional controls
 * (marks U+200E, U+200F, U+061C; embeddings and overrides U+202A–U+202E; isolates U+2066–U+2069), and
 * the line and paragraph separators U+2028, U+2029. A name or URI carrying one could retitle the
 * operator's terminal, erase a line and print a forged one, or display reversed ("gpj.exe").
 */
const UNSAFE_RANGES = '\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069';
const UNSAFE = new RegExp(`[${UNSAFE_RANGES}]`, 'u');
const UNSAFE_ALL = new RegExp(`[${UNSAFE_RANGES}]`, 'gu');

const codePoint = (char: string) => `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

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

/** How many characters of a value people are shown; longer ones end in an ellipsis. */
export const MAX_SHOWN = 200;

/**
 * A value as a terminal may show it: each control or text-direction character written out visibly
 * (`\x1b`, `\u202e`), and cut to `max` characters with an ellipsis. For data stored before the rule
 * above, and for anything quoted back in a message.
 */
export function printable(value: string, max = MAX_SHOWN): string {
  let shown = value;
  if (value.length > max) {
    let cut = max - 1;
    // Never half a surrogate pair.
    if (/[\ud800-\udbff]/.test(value.charAt(cut - 1))) cut -= 1;
    shown = `${value.slice(0, cut)}…`;
  }
  return shown.replace(UNSAFE_ALL, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** JSON.stringify leaves these raw (it escapes only C0 controls): DEL, C1 controls, bidi controls, U+2028/9. */
const RAW_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/**
 * JSON text that is safe on a terminal: JSON.stringify's, with those characters written as \uXXXX escapes.
 * The same JSON value (they can only occur inside strings), so a parser reads back exactly what was stored.
 */
export const jsonText = (value: unknown): string =>
  JSON.stringify(value).replace(RAW_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** A value quoted in a message: printable, in double quotes. */
export const quoted = (value: unknown): string => `"${printable(String(value))}"`;

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
