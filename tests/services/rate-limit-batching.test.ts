import { batchPointsOf, createRateLimiter, FLUSH_MS, RateLimited } from '../../src/services/rate-limit.js';
import type { Viewer } from '../../src/services/viewer.js';
import { createDb } from '../../src/stores/database.js';
import { createStores } from '../../src/stores/stores.js';
import { useMigratedDatabase } from '../helpers/harness.js';
import { until } from '../helpers/wait.js';

// Two limiters on one database are two instances: each grants a hundredth of the budget on its own and
// writes it within FLUSH_MS; the database decides the rest. These pin the documented bounds.
const database = useMigratedDatabase();
const POINTS = 1000;
const BATCH = batchPointsOf(POINTS);
let nextApp = 1;
const appViewer = (): Viewer => ({
  kind: 'app',
  appId: nextApp++,
  clientId: 'c',
  appName: 'App',
  ownerId: 1,
  scopes: [],
});

const stored = async (viewer: Viewer): Promise<number> => {
  const row = await database
    .db('rate_limits')
    .where({ key: `gql:app:${viewer.appId}` })
    .first<{ points: number }>();
  return Number(row?.points ?? 0);
};

/**
 * Spends one point at a time until refused; the points granted. Bounded: a limiter that never refuses
 * fails here at twice the budget, instead of spinning past the test's timeout and holding up the run.
 */
async function spendUntilRefused(limiter: ReturnType<typeof createRateLimiter>, viewer: Viewer) {
  for (let granted = 0; granted <= 2 * POINTS; granted += 1) {
    try {
      await limiter.consume(viewer, 1);
    } catch (err) {
      if (err instanceof RateLimited) return granted;
      throw err;
    }
  }
  throw new Error(`still granting after ${2 * POINTS} points of a ${POINTS}-point budget`);
}

test('one instance grants exactly the budget, and every point granted reaches the database', async () => {
  const limiter = createRateLimiter(createStores(database.db), POINTS);
  const viewer = appViewer();
  try {
    const headers: number[] = [];
    for (let i = 0; i < 25; i += 1) headers.push((await limiter.consume(viewer, 1)).used);
    // The headers count every request, batched or not.
    expect(headers).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    // The limiter's own timer writes them (no flush or close here): waited for, not timed.
    await until(async () => (await stored(viewer)) >= 25, 'the granted points reaching the database', 100 * FLUSH_MS);
    expect(await stored(viewer)).toBe(25);
    expect(25 + (await spendUntilRefused(limiter, viewer))).toBe(POINTS);
  } finally {
    await limiter.close();
  }
});

test('two instances together overspend by at most one batch each', async () => {
  const [a, b] = [
    createRateLimiter(createStores(database.db), POINTS),
    createRateLimiter(createStores(database.db), POINTS),
  ];
  const viewer = appViewer();
  try {
    // Both learn the window first, then spend concurrently.
    await a.consume(viewer, 1);
    await b.consume(viewer, 1);
    const [fromA, fromB] = await Promise.all([spendUntilRefused(a, viewer), spendUntilRefused(b, viewer)]);
    const granted = 2 + fromA + fromB;
    expect(BATCH).toBeGreaterThan(0);
    expect(granted).toBeGreaterThanOrEqual(POINTS);
    expect(granted).toBeLessThanOrEqual(POINTS + 2 * BATCH);
    await Promise.all([a.flush(), b.flush()]);
    // Refusals are counted too (as the database limiter always has): at least every granted point is stored.
    expect(await stored(viewer)).toBeGreaterThanOrEqual(granted);
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});

test('closing writes what was granted and not yet written', async () => {
  const limiter = createRateLimiter(createStores(database.db), POINTS);
  const viewer = appViewer();
  for (let i = 0; i < 5; i += 1) await limiter.consume(viewer, 1);
  await limiter.close();
  expect(await stored(viewer)).toBe(5);
});

test('a small budget is never batched: each request asks the database', async () => {
  expect(batchPointsOf(99)).toBe(0);
  const [a, b] = [createRateLimiter(createStores(database.db), 10), createRateLimiter(createStores(database.db), 10)];
  const viewer = appViewer();
  try {
    for (let i = 0; i < 5; i += 1) {
      await a.consume(viewer, 1);
      expect((await b.consume(viewer, 1)).used).toBe(2 * i + 2);
    }
    await expect(a.consume(viewer, 1)).rejects.toBeInstanceOf(RateLimited);
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});

test("a flush writes every owner's granted points in one statement", async () => {
  const limiter = createRateLimiter(createStores(database.db), POINTS);
  const viewers = Array.from({ length: 30 }, appViewer);
  try {
    // The first request of each learns its window from the database; the next ones are granted here.
    for (const viewer of viewers) await limiter.consume(viewer, 1);
    for (const viewer of viewers) for (let i = 0; i < 3; i += 1) await limiter.consume(viewer, 1);
    const statements: string[] = [];
    const listen = (query: { sql: string }) => statements.push(query.sql);
    database.db.on('query', listen);
    try {
      await limiter.flush();
    } finally {
      database.db.off('query', listen);
    }
    expect(statements).toHaveLength(1);
    for (const viewer of viewers) expect(await stored(viewer)).toBe(4);
  } finally {
    await limiter.close();
  }
});

test('points a failed flush could not write stay owed', async () => {
  const own = createDb(database.url);
  const limiter = createRateLimiter(createStores(own), POINTS);
  const viewer = appViewer();
  try {
    for (let i = 0; i < 5; i += 1) await limiter.consume(viewer, 1);
    await own.destroy();
    await limiter.flush();
    // Still counted: granted here without the database, on top of the 4 not written...
    expect((await limiter.consume(viewer, 1)).used).toBe(6);
    // ...which no flush wrote: the database holds the first request's point only.
    expect(await stored(viewer)).toBe(1);
  } finally {
    await limiter.close();
  }
});
