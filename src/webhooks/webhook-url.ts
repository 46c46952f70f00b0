import { isIP } from 'node:net';
import { codePoint, printable, UNSAFE } from '../lib/text.js';
import { InvalidInput } from '../services/errors.js';
import { bareHost, resolveTarget, type AddressPolicy } from './resolve-target.js';

// Whether a URL may be a webhook's target: its form, its scheme and, in production, where it resolves.

export const MAX_WEBHOOK_URL_LENGTH = 2048;
/** How long a creation waits for the host's addresses. */
const RESOLVE_TIMEOUT_MS = 10_000;

export type WebhookUrlCode =
  | 'URL_INVALID'
  | 'URL_TOO_LONG'
  | 'URL_CONTROL_CHARACTER'
  | 'URL_SCHEME'
  | 'URL_CREDENTIALS'
  | 'URL_NO_HOST'
  | 'URL_UNRESOLVED'
  | 'URL_ADDRESS_REFUSED';

/** A webhook URL that breaks a rule; the reason follows the field name ("url must use https in production"). */
export class WebhookUrlRefused extends InvalidInput {
  constructor(
    readonly code: WebhookUrlCode,
    reason: string,
  ) {
    super(reason, 'url');
  }
}

/** The URL's own rules, before any lookup: the parsed URL, or why it is refused. */
export function checkUrlForm(input: string, production: boolean): URL | WebhookUrlRefused {
  if (input.length > MAX_WEBHOOK_URL_LENGTH) {
    return new WebhookUrlRefused('URL_TOO_LONG', `is longer than ${MAX_WEBHOOK_URL_LENGTH} characters`);
  }
  // URL parsing silently drops tabs and newlines: refuse them before it hides them.
  const unsafe = UNSAFE.exec(input);
  if (unsafe)
    return new WebhookUrlRefused('URL_CONTROL_CHARACTER', `contains the control character ${codePoint(unsafe[0])}`);
  const url = URL.parse(input);
  if (!url) return new WebhookUrlRefused('URL_INVALID', 'is not an absolute URL');
  if (url.protocol !== 'https:' && (production || url.protocol !== 'http:')) {
    return new WebhookUrlRefused('URL_SCHEME', production ? 'must use https in production' : 'must use http or https');
  }
  if (url.username || url.password) {
    return new WebhookUrlRefused('URL_CREDENTIALS', 'must not carry a user name or password');
  }
  if (!bareHost(url)) return new WebhookUrlRefused('URL_NO_HOST', 'has no host');
  if (url.href.length > MAX_WEBHOOK_URL_LENGTH) {
    return new WebhookUrlRefused('URL_TOO_LONG', `is longer than ${MAX_WEBHOOK_URL_LENGTH} characters once normalized`);
  }
  return url;
}

export interface WebhookUrlOptions extends AddressPolicy {
  /** How long to wait for the host's addresses (10 s). */
  resolveTimeoutMs?: number;
}

/**
 * The normalized URL a webhook is created with, or a WebhookUrlRefused. In production the host must
 * resolve, and every one of its addresses be public, unless WEBHOOK_ALLOW_HOSTS lists it; every delivery
 * checks again (sendWebhook), since DNS answers change.
 */
export async function validateWebhookUrl(input: string, options: WebhookUrlOptions): Promise<string> {
  const url = checkUrlForm(input, options.production);
  if (url instanceof WebhookUrlRefused) throw url;
  if (!options.production) return url.href;
  const timeoutMs = options.resolveTimeoutMs ?? RESOLVE_TIMEOUT_MS;
  const signal = AbortSignal.timeout(timeoutMs);
  const host = printable(bareHost(url), 100);
  let resolution;
  try {
    resolution = await resolveTarget(url, options, signal);
  } catch (err) {
    if (!signal.aborted) throw err;
    throw new WebhookUrlRefused('URL_UNRESOLVED', `is refused: ${host} could not be resolved within ${timeoutMs} ms`);
  }
  if (resolution.ok) return url.href;
  if (!resolution.refused) throw new WebhookUrlRefused('URL_UNRESOLVED', `is refused: ${resolution.reason}`);
  const because = isIP(bareHost(url))
    ? resolution.reason
    : `${host} resolves to a refused address (${resolution.reason})`;
  throw new WebhookUrlRefused('URL_ADDRESS_REFUSED', `is refused: ${because}`);
}
