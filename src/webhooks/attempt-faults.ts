import { STATUS_CODES } from 'node:http';
import { printable } from '../lib/text.js';

// One delivery attempt's failure as the one line a webhook's owner reads in its list of attempts.

/** Network and TLS failures by code, in the words an owner can act on. */
const FAULTS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EADDRNOTAVAIL: 'address not available',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host lookup failed, try again',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate does not name the host',
  CERT_HAS_EXPIRED: 'TLS certificate has expired',
  CERT_NOT_YET_VALID: 'TLS certificate is not yet valid',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'TLS certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'TLS certificate chain is self-signed',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate is not trusted',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'TLS certificate is not trusted',
  EPROTO: 'TLS handshake failed',
  ERR_SSL_WRONG_VERSION_NUMBER: 'TLS handshake failed (is it an https server?)',
};

/** What a timed-out attempt reports ("timed out after 10 s"). */
export const timedOut = (ms: number): string => `timed out after ${ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`}`;

/** The failure of an answered attempt: undefined for a 2xx. */
export function statusFault(status: number): string | undefined {
  if (status >= 200 && status < 300) return undefined;
  if (status >= 300 && status < 400) return `redirect ${status} not followed`;
  return `answered ${status}${STATUS_CODES[status] ? ` ${STATUS_CODES[status]}` : ''}`;
}

/** A thrown network, TLS or parser error as one printable line, without a stack. */
export function describeFault(err: unknown): string {
  // Trying several addresses fails with all their errors: the first says why the host was not reached.
  const first = err instanceof AggregateError && err.errors.length ? (err.errors[0] as unknown) : err;
  const code = (first as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string') {
    if (FAULTS[code]) return FAULTS[code];
    if (code.startsWith('HPE_')) return `invalid HTTP response (${code})`;
  }
  const message = first instanceof Error ? first.message : String(first);
  const line = message.split('\n', 1)[0] || 'unknown error';
  return printable(typeof code === 'string' ? `${code}: ${line}` : line, 200);
}
