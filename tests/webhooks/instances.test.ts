import { useBuiltDist } from '../helpers/build.js';
import { spawnServer, stopServers, type ServerProcess } from '../helpers/process.js';
import { startReceiver, type Receiver } from '../helpers/receivers.js';
import { until } from '../helpers/wait.js';
import { seededDatabase, type SeededDatabase } from '../helpers/webhooks.js';

// Two server processes on one database (a SQLite file in WAL mode, or PostgreSQL) share one delivery queue:
// every delivery is made, and each attempt by one of them only — a receiver answering 2xx sees every
// webhook-id exactly once. Two webhooks may take more slots (4 each) than one instance has
// (WEBHOOK_CONCURRENCY 4), so both instances send: the receiver holds its first answers until more requests
// are open at once than one instance may send, which only the other instance joining makes happen.
useBuiltDist();
const REGISTRATIONS = 200;
const WEBHOOKS = 2;
let d: SeededDatabase;
let receiver: Receiver;
const instances: ServerProcess[] = [];
/** How many times each webhook-id reached the receiver. */
const seen = new Map<string, number>();
const CONCURRENCY = 4;
/** Answers held until more than CONCURRENCY requests are open at once (undefined once let go). */
let held: (() => void)[] | undefined = [];
const letGo = () => {
  const answers = held ?? [];
  held = undefined;
  for (const answer of answers) answer();
};

beforeAll(async () => {
  d = await seededDatabase();
  // A little slow, as a real receiver is: attempts overlap.
  receiver = await startReceiver((req, res) => {
    const id = String(req.headers['webhook-id']);
    seen.set(id, (seen.get(id) ?? 0) + 1);
    const answer = () => setTimeout(() => res.writeHead(204).end(), 10);
    if (!held) return answer();
    held.push(answer);
    if (held.length > CONCURRENCY) letGo();
  });
  const env = { NODE_ENV: 'test', DATABASE_URL: d.url, WEBHOOK_CONCURRENCY: String(CONCURRENCY) };
  instances.push(...(await Promise.all([spawnServer(env), spawnServer(env)])));
}, 60_000);
afterAll(async () => {
  await stopServers(instances);
  await receiver?.close();
  await d?.close();
});

/** roster_webhook_deliveries_total{outcome="delivered"} of one instance (0 before its first). */
async function delivered(instance: ServerProcess): Promise<number> {
  const text = await (await fetch(`${instance.url}/metrics`)).text();
  return Number(/^roster_webhook_deliveries_total\{outcome="delivered"\} (\d+)$/m.exec(text)?.[1] ?? 0);
}

test(`${REGISTRATIONS} registrations × ${WEBHOOKS} webhooks: every delivery made, each exactly once`, async () => {
  for (let i = 0; i < WEBHOOKS; i++) {
    await d.services.webhooks.create({ appId: d.appId, url: `${receiver.url}?w=${i}` });
  }
  await d.stores.users.insertMany(Array.from({ length: REGISTRATIONS }, (_, i) => ({ name: `Many ${i}` })));
  const ids: number[] = (await d.db('users').where('name', 'like', 'Many %').pluck('id')).map(Number);
  // One statement: every change, and every delivery, committed at once for both instances to take.
  await d.stores.registrations.insertMany(ids.map((userId) => ({ eventId: d.event.id, userId })));
  const total = REGISTRATIONS * WEBHOOKS;
  // Well within the sender's 10 s timeout, so a held attempt is never retried: the assertions below fail instead.
  setTimeout(letGo, 5000).unref();

  const counts = d.db('webhook_deliveries').count({ n: '*' }).first();
  expect(Number((await counts)?.n)).toBe(total);
  const undelivered = async () =>
    Number((await d.db('webhook_deliveries').whereNot({ state: 'delivered' }).count({ n: '*' }).first())?.n);
  await until(async () => (await undelivered()) === 0, `all ${total} delivered`, 30_000);

  // The receiver saw each webhook-id once, and all of them.
  expect(seen.size).toBe(total);
  expect([...seen.values()].filter((n) => n !== 1)).toEqual([]);
  expect(receiver.received).toHaveLength(total);
  // One attempt written per delivery; between them the instances made them all, each its share.
  const attempts = await d.db('webhook_attempts').count({ n: '*' }).first();
  expect(Number(attempts?.n)).toBe(total);
  const messageIds: string[] = await d.db('webhook_deliveries').pluck('message_id');
  expect(new Set(messageIds)).toEqual(new Set(seen.keys()));
  const shares = await Promise.all(instances.map(delivered));
  expect(shares[0]! + shares[1]!).toBe(total);
  expect(Math.min(...shares)).toBeGreaterThan(0);
}, 60_000);
