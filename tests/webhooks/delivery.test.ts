import { Webhook } from 'standardwebhooks';
import { useSeededServer } from '../helpers/fixtures.js';
import { startReceiver, type Receiver } from '../helpers/receivers.js';
import { until } from '../helpers/wait.js';

// Webhooks end to end: a change committed, a real receiver, the signature verified as a receiver would.
const t = useSeededServer({ WEBHOOK_RETRY_SCHEDULE: '1s,1s' });
let receiver: Receiver;
const status = 204;
beforeAll(async () => {
  receiver = await startReceiver((_req, res) => res.writeHead(status).end());
});
afterAll(() => receiver.close());

const appIdOf = async (clientId: string) => (await t.server.stores.apps.findByClientId(clientId))!.id;

test('a registration is delivered, signed, with what the app token may see and no email', async () => {
  const appId = await appIdOf(t.fx.orgApp.clientId);
  const { webhook, secret } = await t.server.services.webhooks.create({
    appId,
    url: receiver.url,
    types: ['registration.created'],
  });
  expect(secret).toMatch(/^whsec_/);
  const user = await t.server.stores.users.create({ email: 'neo@example.com', name: 'Neo New' });
  await t.server.stores.registrations.create(t.fx.publicEvent.id, user.id);
  await until(() => receiver.received.length === 1, 'delivery');
  const got = receiver.received[0]!;
  const payload = new Webhook(secret).verify(got.body, got.headers as Record<string, string>) as {
    type: string;
    data: Record<string, unknown>;
  };
  expect(payload.type).toBe('registration.created');
  expect(payload.data.registrant).toEqual({ id: user.uid, name: 'Neo New', activationState: 'active' });
  expect(payload.data.event).toEqual({ slug: 'public-meetup', name: 'Public Meetup' });
  expect(got.body).not.toContain('neo@example.com');
  await until(
    async () => (await t.server.services.webhooks.find(webhook.id)).lastDelivery?.state === 'delivered',
    'recorded as delivered',
  );
});
