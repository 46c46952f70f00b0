import { Conflict } from '../../src/services/errors.js';
import { useSeededServer, type Fixtures } from '../helpers/fixtures.js';
import type { TestServer } from '../helpers/harness.js';
import { until } from '../helpers/wait.js';
import { appIdOf, hookReceiver, settled, verified, type HookReceiver } from '../helpers/webhooks.js';

// Retries, failure, disabling, enabling and redelivery. Each scenario has its own event, webhook (filtered on
// that event) and receiver, and all of them start in beforeAll: their 1 s retries run side by side, and each
// test then reads how its own scenario ended.
const t = useSeededServer({ WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s' });
// Disabled after 2 s of nothing but failures, long before this schedule runs out.
const d = useSeededServer({ WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s,1s,1s,1s,1s,1s', WEBHOOK_DISABLE_AFTER: '2s' });

interface Scenario {
  receiver: HookReceiver;
  webhookId: number;
  secret: string;
  eventId: number;
}
const scenarios: Record<string, Scenario> = {};
const receivers: HookReceiver[] = [];

/** A webhook on its own event whose receiver answers as `answer` says; one registration is made there. */
async function scenario(s: { server: TestServer; fx: Fixtures }, name: string, answer: HookReceiver['answer']) {
  const receiver = await hookReceiver(answer);
  receivers.push(receiver);
  const { stores, services } = s.server;
  const event = await stores.events.create({ slug: `retry-${name}`, name, organizerIds: [s.fx.organizer.id] });
  const { webhook, secret } = await services.webhooks.create({
    appId: await appIdOf(stores, s.fx.orgApp.clientId),
    url: receiver.url,
    event: event.slug,
  });
  const guest = await stores.users.create({ name: `Guest of ${name}` });
  await stores.registrations.create(event.id, guest.id);
  scenarios[name] = { receiver, webhookId: webhook.id, secret, eventId: event.id };
}

let target: HookReceiver;
beforeAll(async () => {
  // Where the redirect points: it must never be reached.
  target = await hookReceiver();
  receivers.push(target);
  await scenario(t, 'twice-then-ok', (_r, i) => [500, 503][i] ?? 204);
  await scenario(t, 'redirect', (_r, i) => (i === 0 ? { status: 302, headers: { location: target.url } } : 204));
  await scenario(t, 'exhausted', () => 500);
  await scenario(t, 'redeliver', () => 204);
  await scenario(d, 'disabled', () => 500);
  t.server.nudgeWebhooks();
  d.server.nudgeWebhooks();
});
afterAll(() => Promise.all(receivers.map((r) => r.close())));

test('failing twice, then 204: delivered at the third attempt, the same webhook-id each time, every attempt kept', async () => {
  const { receiver, webhookId, secret } = scenarios['twice-then-ok']!;
  const [delivery] = await settled(t.server.services, webhookId, 1);
  expect(delivery).toMatchObject({ state: 'delivered', attempts: 3, lastStatus: 204, lastError: null });
  expect(receiver.ids()).toEqual([delivery!.messageId, delivery!.messageId, delivery!.messageId]);
  // Each attempt is signed anew (its own timestamp) over the same body.
  const payloads = receiver.received.map((r) => verified(secret, r));
  expect(new Set(receiver.received.map((r) => r.body)).size).toBe(1);
  expect(payloads[0]!.type).toBe('registration.created');

  const { attempts } = await t.server.services.webhooks.history(webhookId);
  expect(attempts.map((a) => [a.status, a.error])).toEqual([
    [204, null],
    [503, 'answered 503 Service Unavailable'],
    [500, 'answered 500 Internal Server Error'],
  ]);
  expect(attempts.every((a) => a.deliveryId === delivery!.id && a.messageId === delivery!.messageId)).toBe(true);
  // Each retry waited its delay (1 s) after the attempt before it.
  const at = attempts.map((a) => a.at).reverse();
  for (let i = 1; i < at.length; i++) expect(at[i]! - at[i - 1]!).toBeGreaterThanOrEqual(1000);
  // A success ends the webhook's run of failures.
  expect((await t.server.services.webhooks.find(webhookId)).failingSince).toBeNull();
});

test('a redirect is a failure and is not followed: retried, and its Location never reached', async () => {
  const { receiver, webhookId } = scenarios.redirect!;
  const [delivery] = await settled(t.server.services, webhookId, 1);
  expect(delivery).toMatchObject({ state: 'delivered', attempts: 2 });
  const { attempts } = await t.server.services.webhooks.history(webhookId);
  expect(attempts.map((a) => [a.status, a.error])).toEqual([
    [204, null],
    [302, 'redirect 302 not followed'],
  ]);
  expect(receiver.received).toHaveLength(2);
  expect(target.connections).toBe(0);
});

test('the schedule runs out: failed after one attempt and one per delay, and not tried again', async () => {
  const { receiver, webhookId } = scenarios.exhausted!;
  const [delivery] = await settled(t.server.services, webhookId, 1);
  expect(delivery).toMatchObject({ state: 'failed', attempts: 4, lastStatus: 500 });
  expect(delivery!.finishedAt).toEqual(expect.any(Number));
  expect(receiver.ids()).toEqual(Array(4).fill(delivery!.messageId));
  expect((await t.server.services.webhooks.history(webhookId)).attempts).toHaveLength(4);
  // Failing for less than WEBHOOK_DISABLE_AFTER (5 days here): still enabled, failing since the first attempt.
  const webhook = await t.server.services.webhooks.find(webhookId);
  expect(webhook).toMatchObject({ enabled: true, disabledReason: null });
  expect(webhook.failingSince).toEqual(expect.any(Number));

  // Redelivered: the whole schedule again, the same webhook-id, and now it is taken.
  receiver.answer = () => 204;
  await t.server.services.webhooks.redeliver(delivery!.id);
  t.server.nudgeWebhooks();
  await until(() => receiver.received.length === 5, 'the redelivery');
  expect(receiver.ids()[4]).toBe(delivery!.messageId);
  const [again] = await settled(t.server.services, webhookId, 1);
  expect(again).toMatchObject({ id: delivery!.id, state: 'delivered', attempts: 1 });
  expect((await t.server.services.webhooks.history(webhookId)).attempts).toHaveLength(5);
});

test('redeliver a delivered one: sent again with the same webhook-id, both attempts kept', async () => {
  const { receiver, webhookId, secret } = scenarios.redeliver!;
  const [delivery] = await settled(t.server.services, webhookId, 1);
  expect(delivery).toMatchObject({ state: 'delivered', attempts: 1 });
  const redelivered = await t.server.services.webhooks.redeliver(delivery!.id);
  expect(redelivered).toMatchObject({ id: delivery!.id, state: 'pending', attempts: 0 });
  t.server.nudgeWebhooks();
  await until(() => receiver.received.length === 2, 'the redelivery');
  expect(receiver.ids()).toEqual([delivery!.messageId, delivery!.messageId]);
  expect(verified(secret, receiver.received[1]!)).toEqual(verified(secret, receiver.received[0]!));
  await settled(t.server.services, webhookId, 1);
  expect((await t.server.services.webhooks.history(webhookId)).attempts.map((a) => a.status)).toEqual([204, 204]);
  await expect(t.server.services.webhooks.redeliver(987_654)).rejects.toThrow('no delivery 987654');
});

test('a ping that fails is failed at once, never retried', async () => {
  const { receiver, webhookId } = scenarios.exhausted!;
  receiver.answer = () => 500;
  const before = receiver.received.length;
  const ping = await t.server.services.webhooks.ping(webhookId);
  t.server.nudgeWebhooks();
  await until(
    async () => (await t.server.stores.deliveries.find(ping.id))?.state === 'failed',
    'the ping recorded as failed',
  );
  expect(await t.server.stores.deliveries.find(ping.id)).toMatchObject({ attempts: 1, lastStatus: 500 });
  expect(receiver.received.length - before).toBe(1);
});

test('failing for WEBHOOK_DISABLE_AFTER disables the webhook with its reason; enabled, it resumes', async () => {
  const { receiver, webhookId, eventId } = scenarios.disabled!;
  const { services, stores } = d.server;
  await until(async () => !(await services.webhooks.find(webhookId)).enabled, 'the webhook disabled', 10_000);
  const webhook = await services.webhooks.find(webhookId);
  expect(webhook.disabledReason).toBe('every attempt failed for 2 s; the last: answered 500 Internal Server Error');
  // Not done with: its delivery waits, with retries left, for the webhook to be enabled again.
  const [waiting] = (await services.webhooks.history(webhookId)).deliveries;
  expect(waiting).toMatchObject({ state: 'pending' });
  const sent = receiver.received.length;
  expect(receiver.ids()).toEqual(Array(sent).fill(waiting!.messageId));
  // Disabled by the first attempt that failed 2 s or more after the first failure, not before.
  const at = (await services.webhooks.history(webhookId)).attempts.map((a) => a.at).reverse();
  expect(at).toHaveLength(sent);
  expect(sent).toBeGreaterThanOrEqual(2);
  expect(at.at(-1)! - at[0]!).toBeGreaterThanOrEqual(2000);
  for (const earlier of at.slice(0, -1)) expect(earlier - at[0]!).toBeLessThan(2000);

  // While disabled: nothing is sent, nothing new is queued, and neither a ping nor a redelivery is taken.
  const guest = await stores.users.create({ name: 'While Disabled' });
  await stores.registrations.create(eventId, guest.id);
  await expect(services.webhooks.ping(webhookId)).rejects.toThrow(Conflict);
  await expect(services.webhooks.redeliver(waiting!.id)).rejects.toThrow(Conflict);
  d.server.nudgeWebhooks();
  // Two retry delays and more: an enabled webhook would have been tried again by now.
  await new Promise((resolve) => setTimeout(resolve, 2500));
  expect(receiver.received).toHaveLength(sent);
  expect((await services.webhooks.history(webhookId)).deliveries).toHaveLength(1);

  receiver.answer = () => 204;
  const enabled = await services.webhooks.enable(webhookId);
  expect(enabled).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
  d.server.nudgeWebhooks();
  const [delivered] = await settled(services, webhookId, 1);
  expect(delivered).toMatchObject({ id: waiting!.id, state: 'delivered', attempts: sent + 1 });
  expect(receiver.ids().at(-1)).toBe(waiting!.messageId);
});
