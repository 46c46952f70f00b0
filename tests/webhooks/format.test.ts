import { Webhook } from 'standardwebhooks';
import type { WebhookPayload } from '../../src/services/webhook-delivery.js';
import { useSeededServer } from '../helpers/fixtures.js';
import { gql } from '../helpers/graphql.js';
import { appIdOf, hookReceiver, settled, verified, type HookReceiver } from '../helpers/webhooks.js';
import { until } from '../helpers/wait.js';

// What a receiver gets for each kind of change: Standard Webhooks headers and signature (checked with the
// `standardwebhooks` library, as a receiver would), the body { type, timestamp, data: { cursor, event,
// registration, registrant } }, and the ids GraphQL gives the app's token.
const t = useSeededServer();
let receiver: HookReceiver;
let secret: string;
let webhookId: number;
/** The app token's feed position after the changes already compared. */
let cursor: string;
let compared = 0;

const FEED = `query($after: String) { changes(after: $after) {
  nodes { cursor type occurredAt eventSlug event { slug name } registration { id } registrant { id name activationState } }
  pageInfo { endCursor } } }`;

interface Node {
  cursor: string;
  type: string;
  occurredAt: string;
  eventSlug: string;
  event: { slug: string; name: string } | null;
  registration: { id: string } | null;
  registrant: { id: string; name: string; activationState: string } | null;
}

beforeAll(async () => {
  receiver = await hookReceiver();
  const created = await t.server.services.webhooks.create({
    appId: await appIdOf(t.server.stores, t.fx.orgApp.clientId),
    url: receiver.url,
  });
  secret = created.secret;
  webhookId = created.webhook.id;
  const head = await gql(t.server, t.fx.tokens.organizerApp, '{ changes(first: 0) { pageInfo { endCursor } } }');
  cursor = (head.body.data!.changes as { pageInfo: { endCursor: string } }).pageInfo.endCursor;
});
afterAll(() => receiver.close());

/**
 * Makes a write, waits for the `count` deliveries it causes, and reads the same changes from the app token's
 * feed: each delivery verified and paired with its change (by cursor).
 */
async function deliveriesOf(write: () => Promise<unknown>, count = 1) {
  await write();
  t.server.nudgeWebhooks();
  await until(() => receiver.received.length >= compared + count, `${count} more deliveries`);
  const got = receiver.received.slice(compared, compared + count);
  compared += count;
  const res = await gql(t.server, t.fx.tokens.organizerApp, FEED, { after: cursor });
  expect(res.body.errors).toBeUndefined();
  const feed = res.body.data!.changes as { nodes: Node[]; pageInfo: { endCursor: string } };
  cursor = feed.pageInfo.endCursor;
  expect(feed.nodes).toHaveLength(count);
  return got.map((received) => {
    const payload = verified(secret, received);
    const node = feed.nodes.find((n) => n.cursor === payload.data.cursor);
    if (!node) throw new Error(`no change in the feed has the cursor ${payload.data.cursor}`);
    return { received, payload, node };
  });
}

/** What every delivery has: the headers, the body's exact keys, the type and time of its change, no email. */
function expectStandardDelivery({ received, payload, node }: Awaited<ReturnType<typeof deliveriesOf>>[number]) {
  expect(received.method).toBe('POST');
  expect(received.path).toBe('/hook');
  expect(received.headers['content-type']).toBe('application/json');
  expect(received.headers['webhook-id']).toMatch(/^msg_[\w-]+$/);
  const timestamp = Number(received.headers['webhook-timestamp']);
  expect(Math.abs(timestamp - Date.now() / 1000)).toBeLessThan(30);
  expect(received.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
  // The signature is over this exact body, id and timestamp: another secret, or a changed byte, fails.
  expect(() =>
    new Webhook('whsec_' + Buffer.alloc(32, 7).toString('base64')).verify(
      received.body,
      received.headers as Record<string, string>,
    ),
  ).toThrow();
  expect(() => verified(secret, { ...received, body: received.body.replace('"data"', '"data" ') })).toThrow();
  expect(Object.keys(payload).sort()).toEqual(['data', 'timestamp', 'type']);
  expect(Object.keys(payload.data).sort()).toEqual(['cursor', 'event', 'registrant', 'registration']);
  expect(payload.type).toBe(node.type.toLowerCase().replace('_', '.'));
  expect(payload.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  expect(Date.parse(payload.timestamp)).toBe(Date.parse(node.occurredAt));
  // No email address of anyone, in any body.
  expect(received.body).not.toContain('@');
}

describe('each change type, in the order a life of an event makes them', () => {
  let eventId: number;
  let userId: number;
  let uid: string;
  let registrationId: string;

  test('event.created: the event, no registration or registrant', async () => {
    const [d] = await deliveriesOf(async () => {
      eventId = (
        await t.server.stores.events.create({
          slug: 'fmt-fair',
          name: 'Format Fair',
          organizerIds: [t.fx.organizer.id],
        })
      ).id;
    });
    expectStandardDelivery(d!);
    expect(d!.payload).toMatchObject({ type: 'event.created' });
    expect(d!.payload.data).toEqual({
      cursor: d!.node.cursor,
      event: { slug: 'fmt-fair', name: 'Format Fair' },
      registration: null,
      registrant: null,
    });
    expect(d!.node.event).toEqual(d!.payload.data.event);
  });

  test('registration.created: the registration by its GraphQL id, the registrant by its uid', async () => {
    const [d] = await deliveriesOf(async () => {
      const user = await t.server.stores.users.create({ email: 'fmt.reg@example.com', name: 'Fay Format' });
      userId = user.id;
      uid = user.uid;
      await t.server.stores.registrations.create(eventId, user.id);
    });
    expectStandardDelivery(d!);
    registrationId = d!.node.registration!.id;
    expect(d!.payload.type).toBe('registration.created');
    expect(d!.payload.data).toEqual({
      cursor: d!.node.cursor,
      event: { slug: 'fmt-fair', name: 'Format Fair' },
      registration: { id: registrationId },
      registrant: { id: uid, name: 'Fay Format', activationState: 'active' },
    });
    expect(d!.node.registrant).toEqual(d!.payload.data.registrant);
    // The same ids the event's registrations give the app token.
    const res = await gql(
      t.server,
      t.fx.tokens.organizerApp,
      '{ event(slug: "fmt-fair") { registrations { nodes { id registrant { id } } } } }',
    );
    expect((res.body.data!.event as { registrations: unknown }).registrations).toEqual({
      nodes: [{ id: registrationId, registrant: { id: uid } }],
    });
  });

  test('registrant.updated: the registrant as it is now (name, activation state)', async () => {
    const [d] = await deliveriesOf(() =>
      t.server.stores.users.update(userId, { name: 'Fay Renamed', email: 'fay.new@example.com' }),
    );
    expectStandardDelivery(d!);
    expect(d!.payload.type).toBe('registrant.updated');
    expect(d!.payload.data).toEqual({
      cursor: d!.node.cursor,
      event: { slug: 'fmt-fair', name: 'Format Fair' },
      registration: null,
      registrant: { id: uid, name: 'Fay Renamed', activationState: 'active' },
    });
    expect(d!.node.registrant).toEqual(d!.payload.data.registrant);

    const [again] = await deliveriesOf(() => t.server.stores.users.setActivationState(userId, 'deactivated'));
    expectStandardDelivery(again!);
    expect(again!.payload.data.registrant).toEqual({ id: uid, name: 'Fay Renamed', activationState: 'deactivated' });
    expect(again!.node.registrant).toEqual(again!.payload.data.registrant);
  });

  test('event.updated: the event as it is now', async () => {
    const [d] = await deliveriesOf(() =>
      t.server.stores.events.update(eventId, { slug: 'fmt-fair', name: 'Format Fair II' }),
    );
    expectStandardDelivery(d!);
    expect(d!.payload.type).toBe('event.updated');
    expect(d!.payload.data).toEqual({
      cursor: d!.node.cursor,
      event: { slug: 'fmt-fair', name: 'Format Fair II' },
      registration: null,
      registrant: null,
    });
    expect(d!.node.event).toEqual(d!.payload.data.event);
  });

  test('registration.deleted: the id GraphQL gave the registration, and its registrant', async () => {
    const [d] = await deliveriesOf(() => t.server.stores.registrations.delete(eventId, userId));
    expectStandardDelivery(d!);
    expect(d!.payload.type).toBe('registration.deleted');
    expect(d!.payload.data).toEqual({
      cursor: d!.node.cursor,
      event: { slug: 'fmt-fair', name: 'Format Fair II' },
      registration: { id: registrationId },
      registrant: { id: uid, name: 'Fay Renamed', activationState: 'deactivated' },
    });
    // The feed resolves what is gone to null; the delivery names what was removed.
    expect(d!.node.registration).toBeNull();
  });

  test('event.deleted: the event as it was', async () => {
    const [d] = await deliveriesOf(() => t.server.stores.events.delete(eventId));
    expectStandardDelivery(d!);
    expect(d!.payload.type).toBe('event.deleted');
    expect(d!.payload.data).toEqual({
      cursor: d!.node.cursor,
      event: { slug: 'fmt-fair', name: 'Format Fair II' },
      registration: null,
      registrant: null,
    });
    expect(d!.node).toMatchObject({ eventSlug: 'fmt-fair', event: null });
  });
});

test('a registrant at two events: one delivery per event, each its own webhook-id, the same registrant', async () => {
  const ann = t.fx.registrants[0]!;
  const both = await deliveriesOf(() => t.server.stores.users.update(ann.id, { name: 'Ann Twice' }), 2);
  for (const d of both) expectStandardDelivery(d);
  expect(both.map((d) => d.payload.data.event!.slug).sort()).toEqual(['private-retreat', 'public-meetup']);
  expect(new Set(both.map((d) => d.received.headers['webhook-id'])).size).toBe(2);
  for (const d of both) {
    expect(d.payload.data.registrant).toEqual({ id: ann.uid, name: 'Ann Twice', activationState: 'active' });
    expect(d.node.registrant).toEqual(d.payload.data.registrant);
  }
});

test('every delivery is recorded as delivered, with one attempt each', async () => {
  const deliveries = await settled(t.server.services, webhookId, compared);
  const { attempts } = await t.server.services.webhooks.history(webhookId);
  expect(deliveries.every((d) => d.state === 'delivered' && d.attempts === 1 && d.lastStatus === 204)).toBe(true);
  expect(attempts).toHaveLength(compared);
  expect(new Set(deliveries.map((d) => d.messageId))).toEqual(new Set(receiver.ids()));
});

test('a ping: webhook.ping with the webhook id, signed like the rest', async () => {
  const before = receiver.received.length;
  await t.server.services.webhooks.ping(webhookId);
  t.server.nudgeWebhooks();
  await until(() => receiver.received.length === before + 1, 'the ping');
  const got = receiver.received[before]!;
  const payload: WebhookPayload = verified(secret, got);
  expect(payload).toEqual({
    type: 'webhook.ping',
    timestamp: expect.any(String),
    data: { webhook: { id: webhookId } },
  });
  expect(got.headers['webhook-id']).toMatch(/^msg_ping_/);
});
