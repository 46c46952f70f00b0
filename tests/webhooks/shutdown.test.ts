import type { ChildProcess } from 'node:child_process';
import { useBuiltDist } from '../helpers/build.js';
import { until, within } from '../helpers/wait.js';
import { settled, useDeliveryServers } from '../helpers/webhooks.js';

// SIGTERM with a delivery attempt in flight: the process gives it 5 s to end (then writes it), or hands the
// delivery back unattempted for the next process, which sends it at once; either way it exits 0.
useBuiltDist();
const t = useDeliveryServers(() => 'hold');
let webhookId: number;
beforeAll(async () => {
  webhookId = (await t.d.services.webhooks.create({ appId: t.d.appId, url: t.receiver.url })).webhook.id;
});

const exitCode = (proc: ChildProcess) =>
  new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));

/** The newest delivery as stored. */
const newest = async () =>
  t.d
    .db('webhook_deliveries')
    .where({ webhook_id: webhookId })
    .orderBy('id', 'desc')
    .first('id', 'message_id', 'state', 'attempts', 'lease_until');

test('an attempt that ends within the grace is written; the process exits 0', async () => {
  const server = await t.start();
  await t.d.register('Term Guest 1');
  await until(() => t.receiver.held.length === 1, 'the attempt in flight', 10_000);
  const exited = exitCode(server.proc);
  server.proc.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 500));
  t.receiver.releaseHeld(204);
  expect(await within(10_000, 'exit after SIGTERM', exited)).toBe(0);
  // Written before the process exited.
  const [delivery] = await settled(t.d.services, webhookId, 1, 100);
  expect(delivery).toMatchObject({ state: 'delivered', attempts: 1, lastStatus: 204 });
}, 30_000);

test('an attempt that does not end is released after the grace; exit 0; the next process sends it at once', async () => {
  const server = await t.start();
  await t.d.register('Term Guest 2');
  await until(() => t.receiver.held.length === 1, 'the attempt in flight', 10_000);
  const held = await newest();
  expect(Number(held!.lease_until)).toBeGreaterThan(Date.now());
  const exited = exitCode(server.proc);
  const signalled = Date.now();
  server.proc.kill('SIGTERM');
  expect(await within(10_000, 'exit after SIGTERM', exited)).toBe(0);
  // It waited the grace (5 s) for the attempt, then let it go: unattempted, no lease, no attempt written.
  expect(Date.now() - signalled).toBeGreaterThanOrEqual(4900);
  expect(await newest()).toMatchObject({ id: held!.id, state: 'pending', attempts: 0, lease_until: null });
  expect((await t.d.services.webhooks.history(webhookId)).attempts).toHaveLength(1);

  // Not the 15 s lease: the next process takes it at once, with the same webhook-id.
  t.receiver.answer = () => 204;
  await t.start();
  const ready = Date.now();
  await until(async () => (await newest())!.state === 'delivered', 'sent by the next process', 10_000);
  expect(t.receiver.at[2]! - ready).toBeLessThan(5000);
  expect(t.receiver.ids()).toEqual([expect.any(String), held!.message_id, held!.message_id]);
  expect(await newest()).toMatchObject({ attempts: 1 });
}, 40_000);
