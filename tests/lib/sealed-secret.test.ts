import { randomBytes } from 'node:crypto';
import { open, seal, SealedSecretError } from '../../src/lib/sealed-secret.js';

const key = randomBytes(32);
const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

test('what is sealed opens with the same key', () => {
  const sealed = seal(secret, key);
  expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
  expect(sealed).not.toContain(secret.slice(6));
  expect(open(sealed, key)).toBe(secret);
  expect(open(seal('', key), key)).toBe('');
  expect(open(seal('clé 🔑', key), key)).toBe('clé 🔑');
});

test('every seal uses a fresh nonce', () => {
  const sealed = new Set(Array.from({ length: 50 }, () => seal(secret, key)));
  expect(sealed.size).toBe(50);
  // nonce (12) + plaintext + tag (16), base64url
  expect(Buffer.from(seal(secret, key).slice(3), 'base64url').length).toBe(12 + secret.length + 16);
});

test('a wrong key does not open it', () => {
  const sealed = seal(secret, key);
  expect(() => open(sealed, randomBytes(32))).toThrow(SealedSecretError);
  expect(() => open(sealed, randomBytes(32))).toThrow('does not open with this key: a wrong key or altered data');
});

test('any altered byte is detected: nonce, ciphertext or tag', () => {
  const raw = Buffer.from(seal(secret, key).slice(3), 'base64url');
  for (let i = 0; i < raw.length; i++) {
    const altered = Buffer.from(raw);
    altered[i]! ^= 0x01;
    expect(() => open(`v1.${altered.toString('base64url')}`, key)).toThrow(SealedSecretError);
  }
});

test.each([
  ['no prefix', (s: string) => s.slice(3), 'no v1. prefix'],
  ['another version', (s: string) => `v2.${s.slice(3)}`, 'no v1. prefix'],
  ['truncated', (s: string) => s.slice(0, 20), 'malformed'],
  [
    'cut short by a byte',
    (s: string) => `v1.${Buffer.from(s.slice(3), 'base64url').subarray(1).toString('base64url')}`,
    'does not open',
  ],
  ['foreign characters', (s: string) => `${s.slice(0, 10)}!${s.slice(10)}`, 'malformed'],
  ['padding', (s: string) => `${s}=`, 'malformed'],
  ['empty', () => '', 'no v1. prefix'],
])('%s is refused', (_what, alter, message) => {
  expect(() => open(alter(seal(secret, key)), key)).toThrow(message);
});

test('the key is 32 bytes', () => {
  expect(() => seal(secret, randomBytes(31))).toThrow('the key must be 32 bytes, not 31');
  expect(() => open(seal(secret, key), Buffer.alloc(0))).toThrow('the key must be 32 bytes, not 0');
});
