import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { Stores } from '../db/stores.js';
import { randomToken } from '../auth/secrets.js';

/** How long a retired signing key stays published: longer than any token it signed lives. */
export const KEY_RETENTION_MS = 24 * 60 * 60 * 1000;

function newSigningKey(kid = randomToken('', 12)): { kid: string; jwk: Record<string, unknown> } {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { kid, jwk: { ...privateKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' } };
}

/** Adds a new signing key; the provider signs with the newest, older ones stay published. */
export async function rotateSigningKey(stores: Stores, now = Date.now()): Promise<{ kid: string }> {
  const key = newSigningKey();
  await stores.secrets.addSigningKey(key.kid, key.jwk, now);
  await stores.secrets.pruneSigningKeys(now - KEY_RETENTION_MS);
  return { kid: key.kid };
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
  return { jwks: { keys: keys.map((k) => k.jwk) }, cookieKeys: JSON.parse(cookieKeys) as string[], pairwiseSalt };
}
