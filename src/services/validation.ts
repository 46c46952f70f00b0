import { ACTIVATION_STATES, type ActivationState, type Visibility } from '../stores/types.js';

// Input checks shared by the CLI and the importer: each returns the clean value or throws a one-line reason.

export class InvalidInput extends Error {}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const UID = /^[A-Za-z0-9_-]{1,64}$/;

export function email(value: unknown, field = 'email'): string {
  if (typeof value !== 'string' || value.length > 320 || !EMAIL.test(value)) {
    throw new InvalidInput(`${field} must be an email address`);
  }
  return value;
}

export function text(value: unknown, field: string, max = 500): string {
  if (typeof value !== 'string' || value.trim() === '') throw new InvalidInput(`${field} must be a non-empty string`);
  if (value.length > max) throw new InvalidInput(`${field} must be at most ${max} characters`);
  return value.trim();
}

export function slug(value: unknown, field = 'slug'): string {
  if (typeof value !== 'string' || value.length > 100 || !SLUG.test(value)) {
    throw new InvalidInput(`${field} must be lowercase letters, digits and single hyphens (1-100 characters)`);
  }
  return value;
}

export function uid(value: unknown, field = 'uid'): string {
  if (typeof value !== 'string' || !UID.test(value)) {
    throw new InvalidInput(`${field} must be 1-64 letters, digits, '_' or '-'`);
  }
  return value;
}

/** A user reference: an email (contains @) or a uid. */
export function userKey(value: unknown, field = 'user'): string {
  if (typeof value === 'string' && value.includes('@')) return email(value, field);
  return uid(value, field);
}

export function httpUrl(value: unknown, field: string): string {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    throw new InvalidInput(`${field} must be an absolute http(s) URL`);
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || String(value).length > 2000) {
    throw new InvalidInput(`${field} must be an absolute http(s) URL`);
  }
  return String(value);
}

/** A redirect URI: absolute http(s), no fragment (RFC 6749 §3.1.2). */
export function redirectUri(value: unknown): string {
  const uri = httpUrl(value, 'redirect URI');
  if (uri.includes('#')) throw new InvalidInput('redirect URI must not contain a fragment');
  return uri;
}

export function timeZone(value: unknown, field = 'time zone'): string {
  if (typeof value !== 'string' || value === '') throw new InvalidInput(`${field} must be an IANA time zone`);
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
  } catch {
    throw new InvalidInput(`${field} "${value}" is not an IANA time zone`);
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
  if (value !== 'public' && value !== 'private') throw new InvalidInput('visibility must be public or private');
  return value;
}

/** An ISO 8601 date-time (with a date part), as epoch milliseconds. */
export function isoTime(value: unknown, field: string): number {
  const ms = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) throw new InvalidInput(`${field} must be an ISO 8601 date-time`);
  return ms;
}

export function boolean(value: unknown, field: string): boolean {
  if (typeof value !== 'boolean') throw new InvalidInput(`${field} must be true or false`);
  return value;
}

export function timeRange(startsAt: number | null, endsAt: number | null): void {
  if (startsAt !== null && endsAt !== null && endsAt < startsAt) {
    throw new InvalidInput('ends_at must not be before starts_at');
  }
}
