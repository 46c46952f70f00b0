import { PassThrough } from 'node:stream';
import { pino } from 'pino';
import { seedFixtures, type Fixtures } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/harness.js';
import { until } from '../helpers/wait.js';
import { appIdOf, hookReceiver, settled, type HookReceiver } from '../helpers/webhooks.js';

// What an operator sees of webhooks: the outcome counters and the backlog gauges on /metrics, and log lines
// for failed and skipped attempts that name the webhook and delivery but carry nothing of the payload.
let server: TestServer;
let fx: Fixtures;
const lines: Record<string, unknown>[] = [];
let logText = '';
const receivers: HookReceiver[] = [];

beforeAll(async () => {
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => {
    logText += chunk.toString();
    for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
  });
  server = await startServer({ WEBHOOK_RETRY_SCHEDULE: '1s' }, { logger: pino({ level: 'info' }, stream) });
  fx = await seedFixtures(server);
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await server.close();
});

async function webhook(clientId: string, answer: HookReceiver['answer'], event?: string) {
  const receiver = await hookReceiver(answer);
  receivers.push(receiver);
  const { webhook } = await server.services.webhooks.create({
    appId: await appIdOf(server.stores, clientId),
    url: receiver.url,
    event,
  });
  return { id: webhook.id, receiver };
}

/** The value of one metric line of /metrics (0 when the series is not there yet). */
async function metric(series: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}
const outcome = (name: string) => metric(`roster_webhook_deliveries_total{outcome="${name}"}`);

test('each outcome is counted; failed and skipped attempts are logged with their ids and no personal data', async () => {
  const ok = await webhook(fx.orgApp.clientId, () => 204, 'public-meetup');
  const failing = await webhook(fx.orgApp.clientId, () => 500, 'public-meetup');
  // An event's creation is queued for every app (its organizers come just after): otherApp may not see a
  // private one, so it is skipped. (The public event's registration is not even queued for otherApp.)
  const other = await webhook(fx.otherApp.clientId, () => 204);
  const guest = await server.stores.users.create({ email: 'logan.logline@example.com', name: 'Logan Logline' });
  await server.stores.registrations.create(fx.publicEvent.id, guest.id);
  await server.stores.events.create({
    slug: 'metrics-private',
    name: 'Private',
    visibility: 'private',
    organizerIds: [fx.organizer.id],
  });
  server.nudgeWebhooks();
  const [delivered] = await settled(server.services, ok.id, 1);
  const [failed] = await settled(server.services, failing.id, 1);
  const [skipped] = await settled(server.services, other.id, 1);
  expect([delivered!.state, failed!.state, skipped!.state]).toEqual(['delivered', 'failed', 'skipped']);

  expect(await outcome('delivered')).toBe(1);
  expect(await outcome('retried')).toBe(1);
  expect(await outcome('failed')).toBe(1);
  expect(await outcome('skipped')).toBe(1);

  const about = (id: number) => lines.filter((l) => l.webhookId === id);
  expect(about(failing.id)).toEqual([
    expect.objectContaining({
      level: 40,
      msg: 'webhook delivery attempt failed',
      deliveryId: failed!.id,
      messageId: failed!.messageId,
      attempt: 1,
      status: 500,
      error: 'answered 500 Internal Server Error',
      retryAt: expect.any(String),
    }),
    expect.objectContaining({
      level: 40,
      msg: 'webhook delivery failed: no retries left',
      deliveryId: failed!.id,
      attempt: 2,
      status: 500,
    }),
  ]);
  expect(about(other.id)).toEqual([
    expect.objectContaining({
      msg: 'webhook delivery skipped',
      deliveryId: skipped!.id,
      reason: 'the app may not see this change now',
    }),
  ]);
  // A delivered attempt is counted, not logged.
  expect(about(ok.id)).toEqual([]);
  // Nothing of the payload (the registrant's name, their email), the signature or the secret in any line.
  for (const secret of ['Logan', 'logan.logline@example.com', 'whsec_', 'v1,', 'webhook-signature']) {
    expect(logText).not.toContain(secret);
  }
});

test('the backlog gauges: deliveries waiting while a receiver stalls, of enabled webhooks only', async () => {
  const event = await server.stores.events.create({
    slug: 'metrics-backlog',
    name: 'Backlog',
    organizerIds: [fx.organizer.id],
  });
  const stalled = await webhook(fx.orgApp.clientId, () => 'hold', 'metrics-backlog');
  await until(async () => (await metric('roster_webhook_pending_deliveries')) === 0, 'an empty queue first');
  const queuedAt = Date.now();
  for (let i = 0; i < 6; i++) {
    const guest = await server.stores.users.create({ name: `Backlogged ${i}` });
    await server.stores.registrations.create(event.id, guest.id);
  }
  server.nudgeWebhooks();
  await until(() => stalled.receiver.held.length === 4, 'four attempts held');
  // Four in flight and two behind them: six waiting, the oldest for a second and more.
  await until(
    async () => (await metric('roster_webhook_pending_deliveries')) === 6,
    'six deliveries pending on /metrics',
    5000,
  );
  await until(
    async () => (await metric('roster_webhook_oldest_pending_seconds')) >= 1,
    'the oldest pending for a second',
    5000,
  );
  expect(await metric('roster_webhook_oldest_pending_seconds')).toBeLessThanOrEqual((Date.now() - queuedAt) / 1000 + 1);

  // A disabled webhook's deliveries are not a backlog anyone is working on: not counted.
  await server.db('webhooks').where({ id: stalled.id }).update({ enabled: false });
  await until(
    async () => (await metric('roster_webhook_pending_deliveries')) === 0,
    'nothing pending of enabled webhooks',
    5000,
  );
  expect(await metric('roster_webhook_oldest_pending_seconds')).toBe(0);
  expect((await server.services.webhooks.history(stalled.id)).deliveries.every((d) => d.state === 'pending')).toBe(
    true,
  );
  // Let the held attempts end now rather than at their timeout.
  await stalled.receiver.close();
});
