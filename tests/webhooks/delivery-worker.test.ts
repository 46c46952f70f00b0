import { pino } from 'pino';
import type { AttemptReport, WebhookDelivery } from '../../src/services/webhook-delivery.js';
import type { ClaimedDelivery } from '../../src/stores/webhook-store.js';
import { startDeliveryWorker } from '../../src/webhooks/delivery-worker.js';
import { until, within } from '../helpers/wait.js';

// The worker's stop, with the queue and the sending played by the test: what it took before stopping is
// either attempted and written, or handed back — never sent after stop() returned.

/** A promise the test settles. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const claim = (id: number) => ({ id, webhookId: 1, messageId: `msg_${id}`, attempts: 0 }) as ClaimedDelivery;

/** A queue whose claims the test answers; it notes what is released and completed. */
function fakeQueue(claims: Promise<ClaimedDelivery[]>[]) {
  const noted = { claimCalls: 0, released: [] as number[], completed: [] as number[] };
  const deliveries = {
    claim: () => claims[noted.claimCalls++] ?? Promise.resolve([]),
    release: async (taken: readonly ClaimedDelivery[]) => void noted.released.push(...taken.map((c) => c.id)),
    prepare: async () => ({ send: { url: 'http://127.0.0.1:9/hook', headers: {}, body: '{}' } }),
    complete: async (c: ClaimedDelivery) => {
      noted.completed.push(c.id);
      return { state: 'delivered' as const };
    },
    skip: async () => {},
  } as unknown as WebhookDelivery;
  return { deliveries, noted };
}

const logger = pino({ level: 'silent' });

test('a claim still under way when stop() is called is released once it returns, and nothing of it is sent', async () => {
  const taking = deferred<ClaimedDelivery[]>();
  const { deliveries, noted } = fakeQueue([taking.promise]);
  const sent: string[] = [];
  const worker = startDeliveryWorker({
    deliveries,
    send: async (request) => (sent.push(request.url), { status: 204, durationMs: 1 }),
    concurrency: 4,
    logger,
  });
  await until(() => noted.claimCalls === 1, 'the first claim');
  const stopped = worker.stop();
  taking.resolve([claim(1), claim(2)]);
  await within(1000, 'stop()', stopped);
  // Whatever the claim took after stop() began goes back unattempted, before stop() returns.
  expect(noted.released.sort()).toEqual([1, 2]);
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(sent).toEqual([]);
  expect(noted.completed).toEqual([]);
});

test('an attempt under way that ends within the grace is written, not released; stop() waits for it', async () => {
  const { deliveries, noted } = fakeQueue([Promise.resolve([claim(7)])]);
  const answer = deferred<AttemptReport>();
  let sending = false;
  const worker = startDeliveryWorker({
    deliveries,
    send: () => ((sending = true), answer.promise),
    concurrency: 4,
    logger,
  });
  await until(() => sending, 'the attempt under way');
  expect(worker.inFlight).toBe(1);
  let done = false;
  const stopped = worker.stop().then(() => (done = true));
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(done).toBe(false);
  answer.resolve({ status: 204, durationMs: 150 });
  await within(1000, 'stop()', stopped);
  expect(noted.completed).toEqual([7]);
  expect(noted.released).toEqual([]);
});

test('a nudge while a claim is under way is not lost: the worker looks again as soon as the claim ends', async () => {
  const first = deferred<ClaimedDelivery[]>();
  const { deliveries, noted } = fakeQueue([first.promise]);
  const worker = startDeliveryWorker({
    deliveries,
    send: async () => ({ status: 204, durationMs: 1 }),
    concurrency: 4,
    logger,
  });
  try {
    await until(() => noted.claimCalls === 1, 'the first claim');
    // A redelivery queued here (or a slot freed) while the claim runs; the claim then finds nothing.
    worker.nudge();
    await new Promise((resolve) => setTimeout(resolve, 20));
    first.resolve([]);
    // Not the next poll (1 s): at once.
    await until(() => noted.claimCalls === 2, 'a second claim', 500);
  } finally {
    await worker.stop();
  }
});
