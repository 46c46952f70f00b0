import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { Stores } from '../stores/stores.js';
import { randomToken } from '../lib/secrets.js';

/** How long a retired signing key stays published: longer than any token it signed lives. */
export const KEY_RETENTION_MS = 24 * 60 * 60 * 1000;
/** A new key is published at once but signs only this much later, when every instance has reloaded it. */
export const KEY_ACTIVATION_DELAY_MS = 2 * 60 * 1000;

function newSigningKey(kid = randomToken('', 12)): { kid: string; jwk: Record<string, unknown> } {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { kid, jwk: { ...privateKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' } };
}

/** Adds a new signing key (it signs after KEY_ACTIVATION_DELAY_MS); drops keys retired for over a day. */
export async function rotateSigningKey(stores: Stores, now = Date.now()): Promise<{ kid: string; activeAt: number }> {
  const key = newSigningKey();
  await stores.secrets.addSigningKey(key.kid, key.jwk, now);
  const keys = await stores.secrets.signingKeys(); // newest first
  // A key retires when its successor starts signing; it stays published KEY_RETENTION_MS after that.
  const retired = keys.filter(
    (_k, i) => i > 0 && keys[i - 1]!.createdAt + KEY_ACTIVATION_DELAY_MS < now - KEY_RETENTION_MS,
  );
  await stores.secrets.deleteSigningKeys(retired.map((k) => k.kid));
  return { kid: key.kid, activeAt: now + KEY_ACTIVATION_DELAY_MS };
}

/**
 * Keys in signing order (the provider signs with the first): the newest key old enough that every
 * instance already publishes it, then the rest. A lone key signs at once.
 */
export function signingOrder<T extends { createdAt: number }>(newestFirst: T[], now = Date.now()): T[] {
  const active = newestFirst.find((k) => k.createdAt <= now - KEY_ACTIVATION_DELAY_MS) ?? newestFirst.at(-1);
  return active ? [active, ...newestFirst.filter((k) => k !== active)] : [];
}

export interface IdentitySecrets {
  jwks: { keys: Record<string, unknown>[] };
  cookieKeys: string[];
  pairwiseSalt: string;
}

/** Loads the provider's secrets from the database, generating them on first start. */
export async function loadIdentitySecrets(stores: Stores): Promise<IdentitySecrets> {
  let keys = await stores.secrets.signingKeys();
  if (keys.length === 0) {
    // Instances starting together race here: one fixed kid means one insert wins and all read the same key.
    const first = newSigningKey('initial');
    await stores.secrets.addSigningKey(first.kid, first.jwk, Date.now(), { ifAbsent: true });
    keys = await stores.secrets.signingKeys();
  }
  const cookieKeys = await stores.secrets.getOrCreate('cookie_keys', () =>
    JSON.stringify([randomBytes(32).toString('base64url')]),
  );
  const pairwiseSalt = await stores.secrets.getOrCreate('pairwise_salt', () => randomBytes(32).toString('base64url'));
  return {
    jwks: { keys: signingOrder(keys).map((k) => k.jwk) },
    cookieKeys: JSON.parse(cookieKeys) as string[],
    pairwiseSalt,
  };
}

/** Which keys there are and which signs, as one comparable string. */
export const keySignature = (ordered: { kid?: unknown }[]): string => ordered.map((k) => String(k.kid)).join(',');

/** A signing key as operators see it: `next` keys are published and sign from `signsFrom`. */
export interface SigningKeyStatus {
  kid: string;
  createdAt: number;
  status: 'signing' | 'next' | 'retired';
  signsFrom: number | null;
}

/** The stored signing keys, newest first, with which one signs now. */
export async function signingKeyStatus(stores: Stores, now = Date.now()): Promise<SigningKeyStatus[]> {
  const keys = await stores.secrets.signingKeys();
  const signing = signingOrder(keys, now)[0];
  return keys.map((k) => {
    const status = k === signing ? 'signing' : k.createdAt > (signing?.createdAt ?? 0) ? 'next' : 'retired';
    return {
      kid: k.kid,
      createdAt: k.createdAt,
      status,
      signsFrom: status === 'next' ? k.createdAt + KEY_ACTIVATION_DELAY_MS : null,
    };
  });
}
