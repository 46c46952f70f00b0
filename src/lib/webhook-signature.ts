import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

// Standard Webhooks signing: what a receiver's `standardwebhooks` library verifies.

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;
/** The fewest key bytes a secret may carry (the Standard Webhooks range is 24 to 64). */
const MIN_SECRET_BYTES = 24;
const MAX_SECRET_BYTES = 64;

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export const newWebhookSecret = (): string => WEBHOOK_SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');

/** Whether `secret` is `whsec_` + canonical base64 of 24 to 64 bytes. */
export function isWebhookSecret(secret: string): boolean {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) return false;
  const encoded = secret.slice(WEBHOOK_SECRET_PREFIX.length);
  const key = Buffer.from(encoded, 'base64');
  return key.toString('base64') === encoded && key.length >= MIN_SECRET_BYTES && key.length <= MAX_SECRET_BYTES;
}

export interface WebhookHeaders {
  'webhook-id': string;
  /** Whole seconds since the epoch. */
  'webhook-timestamp': string;
  /** `v1,` + base64 HMAC-SHA256 of `id.timestamp.body` keyed with the secret's bytes. */
  'webhook-signature': string;
}

/** A message id as a header carries it and a receiver stores it: visible ASCII, no spaces or commas. */
const MESSAGE_ID = /^[\x21-\x2b\x2d-\x7e]{1,200}$/;

/**
 * The three signature headers of one delivery attempt. `id` stays the same on every retry of a
 * delivery (receivers deduplicate on it); `timestamp` is the attempt's. Throws for a malformed secret or id.
 */
export function webhookHeaders(secret: string, id: string, timestamp: Date, body: string): WebhookHeaders {
  if (!isWebhookSecret(secret)) throw new Error('not a webhook secret (whsec_ and base64 of 24 to 64 bytes)');
  if (!MESSAGE_ID.test(id)) throw new Error('a webhook message id is 1 to 200 visible characters, no commas');
  const seconds = Math.floor(timestamp.getTime() / 1000);
  if (!Number.isSafeInteger(seconds) || seconds < 0) throw new Error('the webhook timestamp is not a valid time');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(seconds),
    'webhook-signature': new Webhook(secret).sign(id, new Date(seconds * 1000), body),
  };
}
