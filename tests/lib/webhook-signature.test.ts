import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { isWebhookSecret, newWebhookSecret, webhookHeaders } from '../../src/lib/webhook-signature.js';

const body = JSON.stringify({ type: 'registration.created', timestamp: '2026-01-02T03:04:05.000Z', data: {} });

test('a new secret is whsec_ and base64 of 32 random bytes', () => {
  const secret = newWebhookSecret();
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
  expect(isWebhookSecret(secret)).toBe(true);
  expect(new Set(Array.from({ length: 20 }, newWebhookSecret)).size).toBe(20);
});

test('the headers are what a receiver with the standardwebhooks library verifies', () => {
  const secret = newWebhookSecret();
  const headers = webhookHeaders(secret, 'msg_2x7Yq', new Date(), body);
  expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
  expect(() => new Webhook(newWebhookSecret()).verify(body, { ...headers })).toThrow('No matching signature found');
  expect(() => new Webhook(secret).verify(`${body} `, { ...headers })).toThrow('No matching signature found');
  expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'msg_other' })).toThrow(
    'No matching signature found',
  );
});

test('the signature is v1, base64 HMAC-SHA256 of id.timestamp.body keyed with the bytes after whsec_', () => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwMfKQ9r8GKYo=';
  const at = new Date('2026-01-02T03:04:05.678Z');
  const headers = webhookHeaders(secret, 'msg_1', at, body);
  const seconds = Math.floor(at.getTime() / 1000);
  const expected = createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
    .update(`msg_1.${seconds}.${body}`)
    .digest('base64');
  expect(headers).toEqual({
    'webhook-id': 'msg_1',
    'webhook-timestamp': String(seconds),
    'webhook-signature': `v1,${expected}`,
  });
});

test('a body with characters beyond ASCII is signed as its UTF-8 bytes', () => {
  const secret = newWebhookSecret();
  const text = JSON.stringify({ name: 'Zoë 🎟️ \u2028' });
  const headers = webhookHeaders(secret, 'msg_u', new Date(), text);
  const expected = createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
    .update(Buffer.from(`msg_u.${headers['webhook-timestamp']}.${text}`, 'utf8'))
    .digest('base64');
  expect(headers['webhook-signature']).toBe(`v1,${expected}`);
  expect(new Webhook(secret).verify(Buffer.from(text), { ...headers })).toEqual(JSON.parse(text));
});

test.each([
  ['no prefix', 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
  ['too short', `whsec_${Buffer.alloc(16).toString('base64')}`],
  ['too long', `whsec_${Buffer.alloc(65).toString('base64')}`],
  ['not base64', 'whsec_!!!!MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
  ['empty', 'whsec_'],
])('a malformed secret is refused: %s', (_what, secret) => {
  expect(isWebhookSecret(secret)).toBe(false);
  expect(() => webhookHeaders(secret, 'msg_1', new Date(), body)).toThrow('not a webhook secret');
});

test.each(['', 'msg 1', 'msg,1', 'msg\n1', 'x'.repeat(201)])('a malformed message id is refused: %j', (id) => {
  expect(() => webhookHeaders(newWebhookSecret(), id, new Date(), body)).toThrow('a webhook message id');
});

test('an invalid time is refused', () => {
  expect(() => webhookHeaders(newWebhookSecret(), 'msg_1', new Date(NaN), body)).toThrow('not a valid time');
});
