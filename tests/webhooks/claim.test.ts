import { createDb, type Db } from '../../src/stores/database.js';
import { isSqlite } from '../../src/stores/dialect.js';
import { createStores, type Stores } from '../../src/stores/stores.js';
import { seal } from '../../src/lib/sealed-secret.js';
import { newWebhookSecret } from '../../src/lib/webhook-signature.js';
import { useMigratedDatabase } from '../helpers/harness.js';
import type { Busy } from '../../src/stores/delivery-store.js';
import type { ClaimedDelivery } from '../../src/stores/webhook-store.js';

// The queue's claim against a backlog: each webhook's share bounded, a claim cheap however long the queue,
// and on PostgreSQL claims made at once by several connections (instances) never take the same delivery.
const database = useMigratedDatabase();
const WEBHOOKS = 4;
const CHANGES = 750;
const LEASE_MS = 15_000;
let stores: Stores;

beforeAll(async () => {
  stores = createStores(database.db);
  const owner = await stores.users.create({ name: 'Claim Owner' });
  const event = await stores.events.create({ slug: 'claims', name: 'Claims', organizerIds: [owner.id] });
  const { app } = await stores.apps.create({
    ownerId: owner.id,
    name: 'Claims',
    redirectUris: ['https://c.example/cb'],
  });
  for (let i = 0; i < WEBHOOKS; i++) {
    const secretSealed = seal(newWebhookSecret(), Buffer.alloc(32, 1));
    await stores.webhooks.create(
      { appId: app.id, url: `https://h.example/${i}`, secretSealed, types: null, eventSlug: null },
      10,
    );
  }
  await stores.users.insertMany(Array.from({ length: CHANGES }, (_, i) => ({ name: `Queued ${i}` })));
  const ids: number[] = (await database.db('users').where('name', 'like', 'Queued %').pluck('id')).map(Number);
  // One statement: 750 changes, 3000 deliveries due at once.
  await stores.registrations.insertMany(ids.map((userId) => ({ eventId: event.id, userId })));
}, 60_000);

/** Four at once to one webhook; the owner's share is not what these tests are about. */
const CAPS = { perWebhook: 4, perOwner: 64 };

/** What a worker holding these claims tells the next claim it is busy with. */
function busyOf(claims: readonly ClaimedDelivery[]): Busy {
  const webhooks = new Map<number, number>();
  const owners = new Map<number, number>();
  for (const c of claims) {
    webhooks.set(c.webhookId, (webhooks.get(c.webhookId) ?? 0) + 1);
    owners.set(c.ownerId, (owners.get(c.ownerId) ?? 0) + 1);
  }
  return { webhooks, owners };
}

test(`a backlog of ${CHANGES * WEBHOOKS}: a claim stays cheap and takes at most 4 of each webhook`, async () => {
  const pending = await database.db('webhook_deliveries').where({ state: 'pending' }).count({ n: '*' }).first();
  expect(Number(pending?.n)).toBe(CHANGES * WEBHOOKS);
  const started = performance.now();
  const first = await stores.deliveries.claimDue(64, CAPS, LEASE_MS);
  // Quadratic in the backlog, this took seconds on PostgreSQL; it is a few milliseconds of work.
  expect(performance.now() - started).toBeLessThan(2000);
  expect(first).toHaveLength(WEBHOOKS * 4);
  const perWebhook = new Map<number, number>();
  for (const c of first) perWebhook.set(c.webhookId, (perWebhook.get(c.webhookId) ?? 0) + 1);
  expect([...perWebhook.values()]).toEqual([4, 4, 4, 4]);
  // The oldest four of each webhook: the first four changes.
  const oldest = Math.min(...first.map((c) => c.changePosition!));
  expect(new Set(first.map((c) => c.changePosition))).toEqual(new Set([0, 1, 2, 3].map((i) => oldest + i)));
  // Held (as the worker counts what it sends): nothing more of those webhooks until one is finished or released.
  expect(await stores.deliveries.claimDue(64, CAPS, LEASE_MS, busyOf(first))).toEqual([]);
  await stores.deliveries.release(first.slice(0, 2));
  const again = await stores.deliveries.claimDue(64, CAPS, LEASE_MS, busyOf(first.slice(2)));
  expect(again.map((c) => c.id).sort()).toEqual(
    first
      .slice(0, 2)
      .map((c) => c.id)
      .sort(),
  );
  await stores.deliveries.release([...first.slice(2), ...again]);
});

test('claims made at once by eight connections never take the same delivery twice', async () => {
  // SQLite has one writer per file and one connection here: the claims queue up; on PostgreSQL they race.
  const dbs: Db[] = isSqlite(database.db)
    ? [database.db]
    : Array.from({ length: 8 }, () => createDb(database.url, { poolMax: 2 }));
  try {
    const claimers = dbs.map((db) => createStores(db).deliveries);
    const taken: number[] = [];
    // Rounds of simultaneous claims, each taking what the cap leaves, until every delivery has been taken once.
    for (let round = 0; round < 8 && taken.length < CHANGES * WEBHOOKS; round++) {
      const claims = await Promise.all(
        Array.from({ length: 8 }, (_, i) => claimers[i % claimers.length]!.claimDue(16, CAPS, LEASE_MS)),
      );
      const all = claims.flat();
      taken.push(...all.map((c) => c.id));
      // The round's claims, finished: as a worker writes a delivered attempt.
      for (const c of all) {
        const at = Date.now();
        expect(
          await stores.deliveries.finish(
            c,
            { state: 'delivered', attempt: { at, status: 204, durationMs: 1, error: null } },
            at,
          ),
        ).toBe(true);
      }
      // The per-webhook cap is each instance's (what it sends at once); each claim keeps to its own limit.
      for (const claim of claims) expect(claim.length).toBeLessThanOrEqual(16);
    }
    expect(new Set(taken).size).toBe(taken.length);
    expect(taken.length).toBeGreaterThan(0);
  } finally {
    if (!isSqlite(database.db)) await Promise.all(dbs.map((db) => db.destroy()));
  }
});
