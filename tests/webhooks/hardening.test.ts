import type { IncomingMessage, ServerResponse } from 'node:http';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { createRoster, type Roster } from '../../src/roster.js';
import { createServices } from '../../src/services/services.js';
import { Conflict } from '../../src/services/errors.js';
import { createDb, migrate } from '../../src/stores/database.js';
import { createStores } from '../../src/stores/stores.js';
import { addRegistrants, useSeededServer } from '../helpers/fixtures.js';
import { freshDatabase, type TestServer } from '../helpers/harness.js';
import { startReceiver, type Receiver } from '../helpers/receivers.js';
import { until, within } from '../helpers/wait.js';

// Regression tests of the webhook review's findings (numbered as the review did), each failing on the code
// before the fixes (f224f9d) — the per-app cap's only on PostgreSQL, where creations ran side by side.
const t = useSeededServer({ WEBHOOK_RETRY_SCHEDULE: '1s,1s', MAX_WEBHOOKS_PER_APP: '20' });
const anyUrl = (url: string) => Promise.resolve(url);

const appIdOf = async (clientId: string) => (await t.server.stores.apps.findByClientId(clientId))!.id;
const queued = async (server: TestServer, webhookIds: number[], where: Record<string, unknown> = {}) =>
  Number(
    (await server.db('webhook_deliveries').whereIn('webhook_id', webhookIds).where(where).count({ n: '*' }).first())!.n,
  );

/**
 * Requests open at a receiver at once, by `webhook-id`: one counts from its arrival until its answer is
 * sent or its connection closes (the sender gave up on it).
 */
function overlap() {
  const open = new Map<string, number>();
  const most = new Map<string, number>();
  return {
    enter(req: IncomingMessage, res: ServerResponse): void {
      const id = String(req.headers['webhook-id']);
      open.set(id, (open.get(id) ?? 0) + 1);
      most.set(id, Math.max(most.get(id) ?? 0, open.get(id)!));
      res.once('close', () => open.set(id, open.get(id)! - 1));
    },
    most: (id: string) => most.get(id) ?? 0,
  };
}

/** Answers 204 after `ms`, unless the sender has gone. */
const answerAfter = (res: ServerResponse, ms: number) =>
  setTimeout(() => {
    if (!res.destroyed) res.writeHead(204).end();
  }, ms);

let sink: Receiver;
beforeAll(async () => {
  sink = await startReceiver((_req, res) => res.writeHead(204).end());
});
afterAll(() => sink.close());
// Each test starts with no webhook on the shared server, whatever the one before left (a failure included).
afterEach(async () => {
  for (const w of await t.server.services.webhooks.list()) await t.server.services.webhooks.delete(w.id);
});

// 1. The queue trigger queued a row for every change and every enabled webhook, whoever's it was.
describe('the queue holds only what the app could see', () => {
  test('an outsider’s webhooks queue nothing of registrations it cannot see; the organizer’s get theirs', async () => {
    const outsider = await appIdOf(t.fx.otherApp.clientId);
    const organizer = await appIdOf(t.fx.orgApp.clientId);
    const outsiderHooks: number[] = [];
    for (let i = 0; i < 4; i++) {
      outsiderHooks.push((await t.server.services.webhooks.create({ appId: outsider, url: sink.url })).webhook.id);
    }
    const { webhook: orgHook } = await t.server.services.webhooks.create({
      appId: organizer,
      url: sink.url,
      types: ['registration.created'],
    });
    // The outsider organizes neither event: a private event's registrations, and a public one's, are not its to see.
    await addRegistrants(t.server, t.fx.privateEvent.id, 25, { prefix: 'priv', name: 'Private' });
    await addRegistrants(t.server, t.fx.publicEvent.id, 25, { prefix: 'pub', name: 'Public' });
    expect(await queued(t.server, outsiderHooks)).toBe(0);
    expect(await queued(t.server, [orgHook.id])).toBe(50);
    await until(
      async () => (await queued(t.server, [orgHook.id], { state: 'delivered' })) === 50,
      'the organizer’s 50 deliveries',
      20_000,
    );

    // A public event's own change is the outsider's to see: queued and sent.
    await t.server.stores.events.update(t.fx.publicEvent.id, { slug: 'public-meetup', name: 'Public Meetup!' });
    expect(await queued(t.server, outsiderHooks)).toBe(4);
    await until(
      async () => (await queued(t.server, outsiderHooks, { state: 'delivered' })) === 4,
      'the outsider’s event.updated deliveries',
    );
  }, 30_000);

  test('a deactivated owner’s webhooks get nothing queued, even of the events they organize', async () => {
    const { users, events, apps, registrations } = t.server.stores;
    const owner = await users.create({ email: 'dana@example.com', name: 'Dana Deactivated' });
    const event = await events.create({ slug: 'danas-day', name: 'Dana’s Day', organizerIds: [owner.id] });
    const app = await apps.create({ ownerId: owner.id, name: 'Dana CRM', redirectUris: ['http://localhost:3000/cb'] });
    const { webhook } = await t.server.services.webhooks.create({ appId: app.app.id, url: sink.url });
    const first = await users.create({ email: 'guest1@example.com', name: 'Guest One' });
    await registrations.create(event.id, first.id);
    // While the owner is active, their event's registration is queued.
    expect(await queued(t.server, [webhook.id])).toBe(1);

    await users.setActivationState(owner.id, 'deactivated');
    const second = await users.create({ email: 'guest2@example.com', name: 'Guest Two' });
    await registrations.create(event.id, second.id);
    await events.update(event.id, { slug: 'danas-day', name: 'Dana’s Other Day' });
    expect(await queued(t.server, [webhook.id])).toBe(1);
  }, 15_000);
});

// 2. A redelivery of a delivery being sent made a second attempt beside the first.
test('redeliver refuses a delivery being sent, and redelivers it once it is done', async () => {
  const seen = overlap();
  let hold = 2000;
  const receiver = await startReceiver((req, res) => {
    seen.enter(req, res);
    answerAfter(res, hold);
    hold = 0;
  });
  try {
    const { webhook } = await t.server.services.webhooks.create({
      appId: await appIdOf(t.fx.orgApp.clientId),
      url: receiver.url,
      types: ['registration.created'],
    });
    const user = await t.server.stores.users.create({ email: 'held@example.com', name: 'Held Up' });
    await t.server.stores.registrations.create(t.fx.publicEvent.id, user.id);
    await until(() => receiver.received.length === 1, 'the first attempt under way', 5000);
    const [delivery] = await t.server.stores.deliveries.deliveries(webhook.id, 1);

    const refused = t.server.services.webhooks.redeliver(delivery!.id);
    await expect(refused).rejects.toThrow(Conflict);
    await expect(refused).rejects.toThrow(/being sent right now/);
    t.server.nudgeWebhooks();
    await until(
      async () => (await t.server.stores.deliveries.find(delivery!.id))?.state === 'delivered',
      'the held attempt delivered',
      5000,
    );
    expect(receiver.received).toHaveLength(1);

    // Once sent, it may be redelivered: the same webhook-id again, never beside another attempt.
    await t.server.services.webhooks.redeliver(delivery!.id);
    t.server.nudgeWebhooks();
    await until(() => receiver.received.length === 2, 'the redelivery', 5000);
    const ids = receiver.received.map((r) => r.headers['webhook-id']);
    expect(ids).toEqual([delivery!.messageId, delivery!.messageId]);
    expect(seen.most(delivery!.messageId)).toBe(1);
  } finally {
    await receiver.close();
  }
}, 15_000);

interface Instance {
  roster: Roster;
  close(): Promise<void>;
}

/** Roster on the database at `url`, not listening: what a second instance's webhook worker needs. */
async function instance(url: string): Promise<Instance> {
  const env = { NODE_ENV: 'test', BASE_URL: 'http://127.0.0.1:1', DATABASE_URL: url, WEBHOOK_RETRY_SCHEDULE: '1s' };
  const config = loadConfig(env, false);
  const db = createDb(config.databaseUrl, { poolMax: config.databasePoolMax });
  await migrate(db);
  const roster = await createRoster({ config, db, logger: pino({ level: 'silent' }) });
  return {
    roster,
    async close() {
      await roster.close();
      await db.destroy();
    },
  };
}

// 3. A stop released attempts whose requests were still open: another instance sent them beside them.
test('a stopping instance ends its attempt before another instance sends the delivery again', async () => {
  const seen = overlap();
  let hold = 9000;
  const receiver = await startReceiver((req, res) => {
    seen.enter(req, res);
    answerAfter(res, hold);
    hold = 0;
  });
  // Two instances on one database, in this process (their HTTP side plays no part).
  const database = await freshDatabase();
  const a = await instance(database.url);
  let b: Instance | undefined;
  let stopped: Promise<void> | undefined;
  try {
    const { users, events, apps, registrations } = a.roster.stores;
    const owner = await users.create({ email: 'o@example.com', name: 'Owner' });
    const event = await events.create({ slug: 'stop-day', name: 'Stop Day', organizerIds: [owner.id] });
    const app = await apps.create({ ownerId: owner.id, name: 'A', redirectUris: ['http://localhost:3000/cb'] });
    const { webhook } = await a.roster.services.webhooks.create({
      appId: app.app.id,
      url: receiver.url,
      types: ['registration.created'],
    });
    const user = await users.create({ email: 'r@example.com', name: 'Registrant' });
    await registrations.create(event.id, user.id);
    a.roster.nudgeWebhooks();
    await until(() => receiver.received.length === 1, 'the first attempt, at instance A', 5000);

    b = await instance(database.url);
    // A stops while its request is held: 5 s of grace, then its attempt ends, then B may take the delivery.
    stopped = a.close();
    await until(
      async () => (await b!.roster.services.webhooks.find(webhook.id)).lastDelivery?.state === 'delivered',
      'the delivery sent by instance B',
      15_000,
    );
    await within(10_000, 'instance A stopped', stopped);
    const [delivery] = await b.roster.stores.deliveries.deliveries(webhook.id, 1);
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([delivery!.messageId, delivery!.messageId]);
    expect(seen.most(delivery!.messageId)).toBe(1);
  } finally {
    await receiver.close();
    await (stopped ?? a.close()).catch(() => undefined);
    await b?.close();
    await database.drop();
  }
}, 30_000);

// 4. A sealed secret that did not open skipped the delivery for good.
test('a secret that does not open is a failed attempt, retried on the schedule, not a skip', async () => {
  // Created by a process with WEBHOOK_SECRETS_KEY set (the CLI, say); the server runs with its generated key.
  const keyed = createServices(
    t.server.stores,
    { ...t.server.config, webhookSecretsKey: Buffer.alloc(32, 7) },
    { validateWebhookUrl: anyUrl },
  );
  const { webhook } = await keyed.webhooks.create({
    appId: await appIdOf(t.fx.orgApp.clientId),
    url: sink.url,
    types: ['registration.created'],
  });
  const before = sink.received.length;
  const user = await t.server.stores.users.create({ email: 'sealed@example.com', name: 'Sealed Off' });
  await t.server.stores.registrations.create(t.fx.publicEvent.id, user.id);
  const last = async () => (await t.server.services.webhooks.find(webhook.id)).lastDelivery!;
  await until(async () => (await last()).state !== 'pending' || (await last()).attempts > 0, 'the first attempt');
  const first = await last();
  expect(first).toMatchObject({ state: 'pending', attempts: 1 });
  expect(first.lastError).toMatch(/WEBHOOK_SECRETS_KEY/);
  // Retried after the schedule's 1 s, and again, then failed: never sent, never skipped.
  await until(async () => (await last()).state === 'failed', 'the last attempt', 6000);
  expect(await last()).toMatchObject({ state: 'failed', attempts: 3 });
  const attempts = await t.server.stores.deliveries.attempts(webhook.id, 10);
  expect(attempts).toHaveLength(3);
  for (const a of attempts) expect(a.error).toMatch(/WEBHOOK_SECRETS_KEY/);
  expect(sink.received.length).toBe(before);
}, 15_000);

// 5. Two creations at once could both pass MAX_WEBHOOKS_PER_APP on PostgreSQL.
test('the per-app cap holds under concurrent creations', async () => {
  const capped = createServices(
    t.server.stores,
    { ...t.server.config, maxWebhooksPerApp: 1 },
    { validateWebhookUrl: anyUrl },
  );
  const { app } = await t.server.stores.apps.create({
    ownerId: t.fx.organizer.id,
    name: 'Capped',
    redirectUris: ['http://localhost:3000/cb'],
  });
  for (let round = 0; round < 20; round++) {
    const made = await within(
      5000,
      `round ${round}`,
      Promise.allSettled([0, 1].map(() => capped.webhooks.create({ appId: app.id, url: 'http://127.0.0.1:9/hook' }))),
    );
    const rows = Number((await t.server.db('webhooks').where({ app_id: app.id }).count({ n: '*' }).first())!.n);
    expect({ round, rows }).toEqual({ round, rows: 1 });
    expect(made.filter((m) => m.status === 'fulfilled')).toHaveLength(1);
    const refused = made.find((m) => m.status === 'rejected');
    expect(refused?.reason).toBeInstanceOf(Conflict);
    await t.server.db('webhooks').where({ app_id: app.id }).delete();
  }
}, 20_000);

// 6. One owner's webhooks to a stalled receiver held every delivery slot of an instance.
test('one owner’s stalled webhooks leave slots for another user’s', async () => {
  const stalled = await startReceiver(() => undefined); // never answers
  const fast = await startReceiver((_req, res) => res.writeHead(204).end());
  try {
    const outsider = await appIdOf(t.fx.otherApp.clientId);
    for (let i = 0; i < 16; i++) {
      await t.server.services.webhooks.create({ appId: outsider, url: stalled.url, types: ['event.updated'] });
    }
    await t.server.services.webhooks.create({
      appId: await appIdOf(t.fx.orgApp.clientId),
      url: fast.url,
      types: ['event.updated'],
    });
    // Every one of the 17 webhooks may see a public event's update; the outsider's are queued first.
    await t.server.stores.events.update(t.fx.publicEvent.id, { slug: 'public-meetup', name: 'Public Meetup, again' });
    t.server.nudgeWebhooks();
    // Half the 10 s the stalled attempts hold their slots for: the organizer's delivery waited that long.
    await until(() => fast.received.length === 1, 'the organizer’s delivery', 5000);
    // WEBHOOK_CONCURRENCY is 16: the outsider holds at most a quarter of it.
    expect(stalled.received.length).toBeLessThanOrEqual(4);
  } finally {
    // Closing the stalled receiver ends the attempts held there.
    await stalled.close();
    await fast.close();
  }
}, 15_000);

// 7. A failed first read of the generated secrets key was kept, and refused every later use.
test('a failed first read of the generated secrets key is asked again, not kept', async () => {
  const database = await freshDatabase();
  const db = createDb(database.url);
  try {
    await migrate(db);
    const stores = createStores(db);
    const owner = await stores.users.create({ email: 'o@example.com', name: 'Owner' });
    const { app } = await stores.apps.create({
      ownerId: owner.id,
      name: 'A',
      redirectUris: ['http://localhost:3000/cb'],
    });
    const services = createServices(stores, undefined, { validateWebhookUrl: anyUrl });
    const create = () => services.webhooks.create({ appId: app.id, url: 'http://127.0.0.1:9/hook' });
    // A real database error, not a stub: the table the key is kept in is away for the first read.
    await db.schema.renameTable('service_secrets', 'service_secrets_away');
    await expect(within(5000, 'the first creation', create())).rejects.toThrow(/service_secrets/);
    await db.schema.renameTable('service_secrets_away', 'service_secrets');
    const { secret } = await within(5000, 'the second creation', create());
    expect(secret).toMatch(/^whsec_/);
  } finally {
    await db.destroy();
    await database.drop();
  }
}, 15_000);
