import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

// Secrets the service must read back (a webhook's signing secret), kept encrypted at rest: AES-256-GCM.

const VERSION = 'v1.';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

/** A key as a setting gives it: 32 bytes in base64 or base64url (`openssl rand -base64 32`); undefined if not. */
export function parseKey(text: string): Buffer | undefined {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) return undefined;
  const key = Buffer.from(trimmed, 'base64');
  return key.length === KEY_BYTES ? key : undefined;
}

/** A sealed value that does not open: malformed, altered, or sealed under another key. */
export class SealedSecretError extends Error {}

function checkKey(key: Buffer): void {
  if (key.length !== KEY_BYTES) throw new SealedSecretError(`the key must be ${KEY_BYTES} bytes, not ${key.length}`);
}

/** `plaintext` encrypted under `key` (32 bytes) with a fresh nonce: `v1.` + base64url(nonce | ciphertext | tag). */
export function seal(plaintext: string, key: Buffer): string {
  checkKey(key);
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  // The version is authenticated too, so a sealed value cannot be relabelled as another format.
  cipher.setAAD(Buffer.from(VERSION));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return VERSION + Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64url');
}

/** The plaintext `seal` was given; throws SealedSecretError for a wrong key or any altered byte. */
export function open(sealed: string, key: Buffer): string {
  checkKey(key);
  if (!sealed.startsWith(VERSION)) throw new SealedSecretError('not a sealed secret (no v1. prefix)');
  const encoded = sealed.slice(VERSION.length);
  const raw = Buffer.from(encoded, 'base64url');
  // Node's decoder skips characters it does not know: only the exact encoding of the bytes is accepted.
  if (raw.toString('base64url') !== encoded || raw.length < NONCE_BYTES + TAG_BYTES) {
    throw new SealedSecretError('the sealed secret is malformed');
  }
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, NONCE_BYTES), { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(VERSION));
  decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
  try {
    return Buffer.concat([
      decipher.update(raw.subarray(NONCE_BYTES, raw.length - TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    throw new SealedSecretError('the sealed secret does not open with this key: a wrong key or altered data');
  }
}
