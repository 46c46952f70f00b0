import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { seal } from '../../src/lib/sealed-secret.js';
import { newWebhookSecret } from '../../src/lib/webhook-signature.js';
import { Conflict, InvalidInput } from '../../src/services/errors.js';
import { createServices } from '../../src/services/services.js';
import { validateWebhookUrl } from '../../src/webhooks/webhook-url.js';
import { startServer, type TestServer } from '../helpers/harness.js';
import { startReceiver, type Receiver } from '../helpers/receivers.js';
import { until } from '../helpers/wait.js';

// A production server (NODE_ENV=production) refuses, at creation, webhook URLs that would reach inside:
// plain http, and hosts at loopback, private, link-local, unspecified or mapped addresses in any spelling,
// unless WEBHOOK_ALLOW_HOSTS lists the host; bad filters; more webhooks than MAX_WEBHOOKS_PER_APP. Nothing
// refused is stored. And a stored webhook whose host is refused is refused again at delivery.
const KEY = randomBytes(32);
let server: TestServer;
let appId: number;
let otherAppId: number;
let receiver: Receiver;

beforeAll(async () => {
  server = await startServer(
    {
      NODE_ENV: 'production',
      WEBHOOK_ALLOW_HOSTS: 'localhost',
      MAX_WEBHOOKS_PER_APP: '3',
      WEBHOOK_RETRY_SCHEDULE: '1h',
      WEBHOOK_SECRETS_KEY: KEY.toString('base64'),
    },
    // Production logs at info by default: not into the test run's output.
    { logger: pino({ level: 'silent' }) },
  );
  const { users, events, apps } = server.stores;
  const owner = await users.create({ email: 'hostile.owner@example.com', name: 'Hostile Owner' });
  const stranger = await users.create({ name: 'Stranger' });
  await events.create({ slug: 'open-day', name: 'Open Day', organizerIds: [owner.id] });
  // Webhooks created only to be refused or counted listen here: no change ever sends them anything.
  await events.create({ slug: 'quiet', name: 'Quiet', organizerIds: [owner.id] });
  await events.create({ slug: 'secret-plan', name: 'Secret', visibility: 'private', organizerIds: [stranger.id] });
  appId = (await apps.create({ ownerId: owner.id, name: 'Hostile', redirectUris: ['https://h.example/cb'] })).app.id;
  otherAppId = (await apps.create({ ownerId: owner.id, name: 'Capped', redirectUris: ['https://c.example/cb'] })).app
    .id;
  receiver = await startReceiver((_req, res) => res.writeHead(204).end());
});
afterAll(async () => {
  await receiver?.close();
  await server?.close();
});

const stored = async () => (await server.services.webhooks.list(appId)).length;

test.each([
  ['http://hooks.example.com/roster', 'url must use https in production'],
  ['https://127.0.0.1/hook', 'url is refused: 127.0.0.1 is a loopback address'],
  ['https://10.1.2.3/hook', 'url is refused: 10.1.2.3 is a private address'],
  ['https://169.254.169.254/latest/meta-data/', 'url is refused: 169.254.169.254 is a link-local address'],
  ['https://[::1]/hook', 'url is refused: ::1 is a loopback address'],
  ['https://[::ffff:127.0.0.1]/hook', 'url is refused: ::ffff:7f00:1 is an IPv4-mapped address of 127.0.0.1'],
  ['https://0.0.0.0/hook', 'url is refused: 0.0.0.0 is an unspecified address'],
  ['https://0x7f.1/hook', 'url is refused: 127.0.0.1 is a loopback address'],
  ['https://2130706433/hook', 'url is refused: 127.0.0.1 is a loopback address'],
  ['https://[fd00::1]/hook', 'url is refused: fd00::1 is a unique-local address'],
  ['https://[fe80::1]/hook', 'url is refused: fe80::1 is a link-local address'],
  ['https://user:pass@93.184.216.34/hook', 'url must not carry a user name or password'],
])('%s is refused with InvalidInput, and nothing is stored', async (url, message) => {
  const err: unknown = await server.services.webhooks.create({ appId, url }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(InvalidInput);
  expect((err as InvalidInput).message).toContain(message);
  expect(await stored()).toBe(0);
});

test('a name that resolves to loopback is refused, unless WEBHOOK_ALLOW_HOSTS lists it', async () => {
  // `localhost` is listed for this server: accepted (https still required).
  const { webhook, secret } = await server.services.webhooks.create({
    appId,
    url: 'https://LOCALHOST:8443/hook',
    event: 'quiet',
  });
  expect(webhook.url).toBe('https://localhost:8443/hook');
  expect(secret).toMatch(/^whsec_/);
  await expect(server.services.webhooks.create({ appId, url: 'http://localhost:8443/hook' })).rejects.toThrow(
    'url must use https in production',
  );
  await server.services.webhooks.delete(webhook.id);
  // The same name where nothing is allowed: a production service built without the list.
  const strict = createServices(server.stores, server.config, {
    validateWebhookUrl: (url) => validateWebhookUrl(url, { production: true }),
  });
  await expect(strict.webhooks.create({ appId, url: 'https://localhost:8443/hook' })).rejects.toThrow(
    /url is refused: localhost resolves to a refused address \((127\.0\.0\.1|::1) is a loopback address\)/,
  );
  expect(await stored()).toBe(0);
});

test('a public address is accepted', async () => {
  const { webhook } = await server.services.webhooks.create({
    appId,
    url: 'https://93.184.216.34/hook',
    event: 'quiet',
  });
  expect(webhook).toMatchObject({ url: 'https://93.184.216.34/hook', enabled: true, types: null, eventSlug: 'quiet' });
  await server.services.webhooks.delete(webhook.id);
});

test.each<[string, { types?: string[]; event?: string }, string]>([
  ['an unknown type', { types: ['registration.created', 'registration.exploded'] }, 'type must be one of'],
  ['a GraphQL spelling of a type', { types: ['REGISTRATION_CREATED'] }, 'type must be one of'],
  ['an event that does not exist', { event: 'no-such-event' }, 'event names no event the app can see: "no-such-event"'],
  [
    "another organizer's private event",
    { event: 'secret-plan' },
    'event names no event the app can see: "secret-plan"',
  ],
  [
    'a malformed slug',
    { event: 'Open Day; DROP TABLE events' },
    'event must be lowercase letters, digits and single hyphens',
  ],
])('%s is refused with InvalidInput, and nothing is stored', async (_name, filter, message) => {
  const err: unknown = await server.services.webhooks
    .create({ appId, url: 'https://93.184.216.34/hook', ...filter })
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(InvalidInput);
  expect((err as InvalidInput).message).toContain(message);
  expect(await stored()).toBe(0);
});

test('at most MAX_WEBHOOKS_PER_APP per app, also when created all at once', async () => {
  const create = (i: number) =>
    server.services.webhooks.create({ appId: otherAppId, url: `https://93.184.216.34/hook-${i}`, event: 'quiet' });
  // Twelve at once (on PostgreSQL, on as many connections as the pool has): three are created.
  const results = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => create(i)));
  expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
  const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason);
  expect(refused).toHaveLength(9);
  for (const err of refused) {
    expect(err).toBeInstanceOf(Conflict);
    expect((err as Error).message).toBe('an app may have at most 3 webhooks; delete one first');
  }
  expect(await server.services.webhooks.list(otherAppId)).toHaveLength(3);
  await expect(create(12)).rejects.toThrow(Conflict);
  for (const w of await server.services.webhooks.list(otherAppId)) await server.services.webhooks.delete(w.id);
});

test('a stored webhook whose address is refused is refused again at every delivery: no connection is made', async () => {
  // As if it had been allowed once (or its name resolved elsewhere then): written past the creation check.
  const row = await server.stores.webhooks.create(
    {
      appId,
      url: `https://127.0.0.1:${receiver.port}/hook`,
      secretSealed: seal(newWebhookSecret(), KEY),
      types: null,
      eventSlug: 'open-day',
    },
    10,
  );
  const guest = await server.stores.users.create({ name: 'Refused Guest' });
  const event = await server.stores.events.findBySlug('open-day');
  await server.stores.registrations.create(event!.id, guest.id);
  server.nudgeWebhooks();
  await until(
    async () => (await server.services.webhooks.history(row!.id)).attempts.length === 1,
    'the refused attempt',
  );
  const { attempts, deliveries } = await server.services.webhooks.history(row!.id);
  expect(attempts[0]).toMatchObject({ status: null, error: 'refused: 127.0.0.1 is a loopback address' });
  expect(deliveries[0]).toMatchObject({ state: 'pending', attempts: 1 });
  expect(receiver.connections).toBe(0);
  await server.services.webhooks.delete(row!.id);
});
